/** What a command's action gets from main(): where to write, and how to say which exit code it ends with. */
export interface CommandContext {
  /** Writes to standard output (in order; main() waits for it before returning). */
  out(text: string): void;
  /** Writes to standard error. */
  err(text: string): void;
  /** Sets the exit code main() returns once the action has finished. */
  setExitCode(code: number): void;
}
