/**
 * The `netweir` command line (C24): builds the commander program, runs one command, and turns the outcome into an
 * exit code. Nothing here exits the process: cli.ts does, with the code main() returns.
 */
import { Command, CommanderError } from "commander";
import type { CommandContext } from "./context.ts";
import { addCrawlCommand, type RunCrawl } from "./crawl_command.ts";
import { exitCodeFor, reportError } from "./errors.ts";
import { addInspectCommand } from "./inspect.ts";
import { addListCommand } from "./list.ts";
import { addFetchCommand } from "./fetch.ts";
import { addParseCommand } from "./parse.ts";
import { addShellCommand } from "./shell.ts";
import { addCheckCommand } from "./check.ts";
import { addGenspiderCommand } from "./genspider.ts";
import { addSettingsCommand } from "./settings_command.ts";
import { type CliOutput, processOutput } from "./output.ts";
import { addQueueCommand } from "./queue_command.ts";
import { addServeCommand } from "./serve_command.ts";
import { addServeInspectCommand } from "./serve_inspect.ts";
import { addServeJobCommand } from "./serve_job.ts";
import { addStartProjectCommand } from "./startproject.ts";
import { addVersionCommand, versionText } from "./version.ts";

const PROGRAM_HELP_AFTER = `
"netweir COMMAND --help" shows a command's options.
Exit status: 0 on success, 1 for a failure at run time, 2 for bad arguments or values. Errors are one line on
standard error; NETWEIR_DEBUG=1 adds the stack trace of an unexpected one.`;

/** Options for {@link createProgram}; tests use them to see what a command line is parsed into. */
export interface ProgramOptions {
  /** Runs `crawl`; defaults to runCrawlCommand from src/cli/crawl.ts. */
  runCrawl?: RunCrawl;
}

/**
 * The `netweir` program, writing through `context`. Commander's own exits are turned into CommanderErrors
 * (exitOverride) and its messages are left to the caller, which prints them as `netweir: <message>`.
 */
export function createProgram(context: CommandContext, options: ProgramOptions = {}): Command {
  const program = new Command("netweir")
    .description("Netweir: crawl the web with spiders written in TypeScript")
    // Set before the commands are added: subcommands copy these settings when they are created.
    .exitOverride()
    .configureOutput({ writeOut: context.out, writeErr: context.err, outputError: () => {} })
    .version(versionText().trimEnd(), "-V, --version", "print the version of netweir and of the runtime")
    .helpOption("-h, --help", "show help")
    .addHelpText("after", PROGRAM_HELP_AFTER);
  addCrawlCommand(program, context, options.runCrawl);
  addListCommand(program, context);
  addStartProjectCommand(program, context);
  addVersionCommand(program, context);
  addInspectCommand(program, context);
  addQueueCommand(program, context);
  addServeCommand(program, context);
  addServeInspectCommand(program);
  addServeJobCommand(program, context);
  addFetchCommand(program, context);
  addParseCommand(program, context);
  addShellCommand(program, context);
  addCheckCommand(program, context);
  addGenspiderCommand(program, context);
  addSettingsCommand(program, context);
  return program;
}

/** The exit code for one of commander's own exits, after printing its message when it is an error. */
function commanderExit(error: CommanderError, err: (text: string) => void): number {
  if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
  // `netweir help` asks for help (0); a bare `netweir` gets it because no command was given (commander's 1: ours is 2).
  if (error.code === "commander.help") return error.exitCode === 0 ? 0 : 2;
  const message = error.message.replace(/^error: /, "").split("\n").map((line) => line.trim()).filter(Boolean);
  err(`netweir: ${message.join(" ")}\n`);
  return 2;
}

/**
 * Runs the `netweir` command line on `argv` (the arguments after the program) and returns the exit code: 0 for
 * success (and for `--help`), 2 for bad arguments or values, 1 for failures at run time.
 */
export async function main(argv: string[], output: CliOutput = processOutput()): Promise<number> {
  let code = 0;
  const context: CommandContext = { out: output.out, err: output.err, setExitCode: (value) => code = value };
  try {
    await createProgram(context).parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      code = commanderExit(error, output.err);
    } else {
      reportError(error, output.err);
      code = exitCodeFor(error);
    }
  }
  await output.flush();
  return code;
}
