/**
 * The hidden `netweir _serve_inspect TOKEN FILE...` command: `netweir serve` reads every changed spider file of a
 * project in one process of this command instead of one process per file. For each file it says, on standard
 * error and synchronously (so the line is out before a file that hangs the process is imported):
 *
 *   TOKEN start INDEX
 *   TOKEN done {"file": ..., "spiders": [...]} or {"file": ..., "error": "..."}
 *
 * Lines without the token are the spider files' own output. The service watches the time between `start` and
 * `done`: a file that hangs, or ends the process, is reported by name and the service goes on with the files after
 * it in a new process (src/serve/spider_reader.ts).
 */
import type { Command } from "commander";
import { runtime } from "../runtime/mod.ts";
import { inspectFile } from "./inspect.ts";

/** Reads `files` one after the other, reporting each as described above. */
export async function inspectFilesForServe(token: string, files: string[]): Promise<void> {
  for (const [index, file] of files.entries()) {
    runtime.writeStderr(`\n${token} start ${index}\n`);
    const result = await inspectFile(file);
    runtime.writeStderr(`\n${token} done ${JSON.stringify(result)}\n`);
  }
}

/** Adds the hidden `_serve_inspect TOKEN FILE...` command. */
export function addServeInspectCommand(program: Command): void {
  program
    .command("_serve_inspect <token> <files...>", { hidden: true })
    .description("read several spider files for netweir serve, one after the other")
    .action(async (token: string, files: string[]) => {
      await inspectFilesForServe(token, files);
    });
}
