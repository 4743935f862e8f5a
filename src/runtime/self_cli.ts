/** How Netweir runs itself in a new process: `list` reads spider files that way, and `serve` runs its jobs so. */
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "./mod.ts";

/** The CLI entry: cli.ts from the sources, cli.js in the npm build, whichever this module itself is. */
export const CLI_PATH: string = fileURLToPath(
  new URL(`../../cli${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/** The command that runs `netweir` in a new process: an executable and its leading arguments. */
export function selfCli(): { command: string; args: string[] } {
  return runtime.selfCommand(CLI_PATH);
}
