/** `netweir version`: Netweir's version and the runtime it is running on. */
import type { Command } from "commander";
import { runtime } from "../runtime/mod.ts";
import { VERSION } from "../version.ts";
import type { CommandContext } from "./context.ts";

/** `netweir 0.4.0` then the runtime (`deno 2.9.6`), on two lines. */
export function versionText(): string {
  return `netweir ${VERSION}\n${runtime.name} ${runtime.version}\n`;
}

/** Adds `version`. */
export function addVersionCommand(program: Command, context: CommandContext): void {
  program
    .command("version")
    .description("print the version of netweir and of the runtime")
    .action(() => context.out(versionText()));
}
