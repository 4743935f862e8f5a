/**
 * The process's own standard input and output as Node streams, for `netweir shell`'s prompt (node:readline wants
 * them, with raw mode for line editing and history). node:process is the same object on Deno and on Node, so this
 * needs no runtime of its own; it lives here because it is the only place outside the runtime files that touches
 * the process's streams.
 */
import process from "node:process";
import type { Readable, Writable } from "node:stream";

/** The terminal streams and whether both ends are a terminal. */
export interface TerminalStreams {
  input: Readable;
  output: Writable;
  /** Standard input and standard output are both a terminal (a person is typing). */
  interactive: boolean;
}

/** This process's standard input and output. */
export function terminalStreams(): TerminalStreams {
  return {
    input: process.stdin,
    output: process.stdout,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  };
}
