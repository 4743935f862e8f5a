/**
 * A program run in a real pseudo-terminal, driven as a person would: tmux starts it in a detached session on a
 * server of its own (its socket in a temporary directory of its own, so tests never share one), `type` sends keys,
 * `waitFor` reads the screen until a pattern shows. Used to test `netweir shell`'s prompt, which behaves differently
 * on a terminal.
 *
 * ```ts
 * const term = await Terminal.start(["deno", "run", "-A", "cli.ts", "shell", url]);
 * await term.waitFor(/netweir>$/);
 * await term.type('page.css("h1").text()');
 * ```
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "./command.ts";

const CONFIG = fileURLToPath(new URL("./tmux.conf", import.meta.url));

/** A program in a pseudo-terminal of 200 columns by 50 lines. */
export class Terminal {
  /** A directory of its own holding the server's socket, removed at close. */
  readonly #dir: string;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /** Starts `argv` (with `env` added to this process's environment) in a new tmux server. */
  static async start(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Terminal> {
    const term = new Terminal(await mkdtemp(join(tmpdir(), "netweir-tmux-")));
    const env = Object.entries(options.env ?? {}).map(([name, value]) => `${name}=${value}`);
    const ran = await term.#tmux([
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      "200",
      "-y",
      "50",
      ...(options.cwd ? ["-c", options.cwd] : []),
      // The program's exit status, written on the screen when it ends (tmux's own #{pane_dead_status} is left
      // empty now and then by tmux 3.3).
      "sh",
      "-c",
      '"$@"; echo "[exited $?]"',
      "sh",
      "env",
      ...env,
      ...argv,
    ]);
    if (ran.code !== 0) throw new Error(`tmux did not start: ${ran.stderr}`);
    return term;
  }

  #tmux(args: string[]) {
    // The configuration keeps the pane after the program ends (set from the start: a program that ends at once
    // would take the server with it), so its last screen and exit status can still be read.
    return runCommand("tmux", ["-S", join(this.#dir, "socket"), "-f", CONFIG, ...args]);
  }

  /** The screen and the scrollback, as text, without the blank end of the screen (and trailing spaces). */
  async screen(): Promise<string> {
    const ran = await this.#tmux(["capture-pane", "-p", "-J", "-t", "main", "-S", "-1000"]);
    return ran.stdout.trimEnd();
  }

  /** Types `text` and presses Enter (unless `enter` is false). */
  async type(text: string, enter = true): Promise<void> {
    if (text !== "") await this.#tmux(["send-keys", "-t", "main", "-l", text]);
    if (enter) await this.#tmux(["send-keys", "-t", "main", "Enter"]);
  }

  /** Presses a key by tmux's name for it: "C-c", "C-d", "Up". */
  async press(key: string): Promise<void> {
    await this.#tmux(["send-keys", "-t", "main", key]);
  }

  /** Resolves with the screen once `pattern` matches it; fails with the screen after `ms`. */
  async waitFor(pattern: { test(text: string): boolean }, ms = 30_000): Promise<string> {
    const until = Date.now() + ms;
    for (;;) {
      const text = await this.screen();
      if (pattern.test(text)) return text;
      if (Date.now() > until) throw new Error(`the terminal did not show ${pattern} in ${ms} ms; it shows:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The program's exit status once it has ended, or undefined while it runs. */
  async exitStatus(): Promise<number | undefined> {
    const line = /\[exited (\d+)\]/.exec(await this.screen());
    return line ? Number(line[1]) : undefined;
  }

  /** Waits for the program to end and returns its exit status. */
  async exited(ms = 30_000): Promise<number> {
    const until = Date.now() + ms;
    for (;;) {
      const status = await this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > until) throw new Error(`the program did not end in ${ms} ms:\n${await this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Ends the tmux server and the program with it, and removes the socket. */
  async close(): Promise<void> {
    await this.#tmux(["kill-server"]);
    await rm(this.#dir, { recursive: true, force: true });
  }
}
