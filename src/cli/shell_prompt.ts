/**
 * The read-evaluate-print loop of `netweir shell`: one line at a time from the terminal (node:readline, with line
 * editing and history when a person is typing), run by a ShellScope, its value printed as shell_print.ts shows it.
 * An error is one line (`SyntaxError: ...`, `TypeError: ...`) and the prompt carries on; Ctrl-C clears the line;
 * Ctrl-D or `exit()` leaves.
 */
import { createInterface } from "node:readline";
import { firstLine } from "../errors.ts";
import type { TerminalStreams } from "../runtime/terminal.ts";
import type { ShellScope } from "./shell_eval.ts";
import { showValue } from "./shell_print.ts";

/** The prompt the shell shows, as Scrapy's shell shows `In [1]:`: short, and easy for a test to wait for. */
export const PROMPT = "netweir> ";

/** The name an error is shown with: a JavaScript error's own, "Error" for Netweir's one-line ones. */
function errorName(error: unknown): string {
  if (!(error instanceof Error)) return "Error";
  return error.name === "CommandError" || error.name === "UsageError" ? "Error" : error.name;
}

/** Runs the loop until the input ends or `exit()` is called; `print` writes to the terminal. */
export async function runPrompt(scope: ShellScope, terminal: TerminalStreams, print: (text: string) => void) {
  const lines = createInterface({
    input: terminal.input,
    output: terminal.output,
    prompt: PROMPT,
    terminal: terminal.interactive,
    historySize: 500,
  });
  let closed = false;
  const closedPromise = new Promise<void>((resolve) => lines.once("close", () => resolve()));
  lines.once("close", () => closed = true);
  let exited = false;
  scope.set("exit", () => {
    exited = true;
    lines.close();
  });
  lines.on("SIGINT", () => {
    print(lines.line === "" ? "\n(To leave, press Ctrl-D or type exit())\n" : "\n");
    lines.write("", { ctrl: true, name: "u" });
    lines.prompt();
  });
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  lines.on("line", (line) => {
    queue.push(line);
    wake?.();
  });
  lines.prompt();
  while (true) {
    if (queue.length === 0) {
      if (closed) break;
      await Promise.race([new Promise<void>((resolve) => wake = resolve), closedPromise]);
      wake = undefined;
      continue;
    }
    const code = queue.shift()!;
    if (code.trim() !== "") {
      try {
        const value = await scope.run(code);
        if (value !== undefined) print(showValue(value, terminal.interactive) + "\n");
      } catch (error) {
        print(`${errorName(error)}: ${firstLine(error)}\n`);
      }
    }
    if (exited) break;
    if (!closed) lines.prompt();
  }
  lines.close();
}
