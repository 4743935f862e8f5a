/**
 * The hidden `netweir _serve_job SPEC` command: how `netweir serve` starts a job. SPEC is a file the service wrote,
 * readable by its user alone, holding the job's `netweir crawl` arguments (`{"argv": ["crawl", FILE, ...], ...}`). The
 * file is deleted as soon as it is read and the crawl runs as `netweir crawl` would with those arguments: the job's
 * settings and spider arguments, which may hold passwords, never appear on a command line, which every user of the
 * machine can read (`ps`, /proc).
 */
import { readFile, rm } from "node:fs/promises";
import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import { makeNewFilesPrivate } from "../runtime/umask.ts";
import type { JobSpec } from "../serve/job_spec.ts";
import type { CommandContext } from "./context.ts";

/**
 * A spec file (job_spec.ts's JobSpec), which is deleted once read (even when it turns out to be malformed). Its
 * data directory and settings are there for checking the job's file settings again; a spec without them gives none.
 */
export async function readJobSpec(file: string): Promise<JobSpec> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the job spec ${file}: ${(error as Error).message}`);
  } finally {
    await rm(file, { force: true }).catch(() => {});
  }
  const spec = (() => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  })();
  const argv = spec?.argv;
  if (!Array.isArray(argv) || argv[0] !== "crawl" || argv.some((arg: unknown) => typeof arg !== "string")) {
    throw new UsageError(`the job spec ${file} is not {"argv": ["crawl", ...]}`);
  }
  const settings = Array.isArray(spec.settings) ? spec.settings.filter((one: unknown) => typeof one === "string") : [];
  return { argv, dataDir: typeof spec.dataDir === "string" ? spec.dataDir : "", settings };
}

/** Adds the hidden `_serve_job SPEC` command. */
export function addServeJobCommand(program: Command, context: CommandContext): void {
  program
    .command("_serve_job <spec>", { hidden: true })
    .description("run a job of netweir serve from its spec file (deleted once read)")
    .action(async (spec: string) => {
      // Before the crawl makes anything: its items, stats, checkpoint and cache are the service user's alone, as
      // the service's own files are (they can hold what the job was given, logins included).
      makeNewFilesPrivate();
      const { argv, dataDir, settings } = await readJobSpec(spec);
      // Checked when the job was scheduled; checked again now, just before the crawl opens its files, since a
      // symlink can have been planted in the data directory meanwhile.
      if (dataDir !== "") {
        // Loaded here, not with every command's start.
        const { ConfinementError, reconfine } = await import("../serve/confine.ts");
        await reconfine(settings, dataDir).catch((error) => {
          throw error instanceof ConfinementError ? new UsageError(error.message) : error;
        });
      }
      // The crawl command itself, parsed and run as if typed: one program per run, as main() builds it.
      const { createProgram } = await import("./main.ts");
      let code = 0;
      const inner = createProgram({ ...context, setExitCode: (value) => code = value });
      await inner.parseAsync(argv, { from: "user" });
      context.setExitCode(code);
    });
}
