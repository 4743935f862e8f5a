/**
 * The command line of `netweir serve`: options in, the service up until SIGINT or SIGTERM, which cancel running
 * jobs the way Ctrl-C stops a crawl and wait for them (a second signal kills them at once). The service itself is
 * in src/serve/, loaded only when serve runs.
 */
import type { Command } from "commander";
import { runtime } from "../runtime/mod.ts";
import type { CommandContext } from "./context.ts";
import { importOwnModule } from "../runtime/optional_module.ts";

const SERVE_HELP_AFTER = `
Runs spiders as jobs behind a scrapyd-compatible HTTP API (schedule.json, listjobs.json, cancel.json, ...).
Give the login as NETWEIR_SERVE_USERNAME and NETWEIR_SERVE_PASSWORD rather than --username/--password: a command
line can be read by every user of the machine. Binding to an address other machines can reach needs a login, or
--insecure-no-auth. Stop it with Ctrl-C: running jobs stop cleanly and waiting jobs stay for the next start.
Exit status: 0 after a clean stop, 1 when it cannot start (another service owns --dir, the port is taken), 2 for
bad options.`;

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function addServeCommand(program: Command, context: CommandContext): void {
  program
    .command("serve")
    .description("run spiders as jobs behind a scrapyd-compatible HTTP API")
    .option("--project <name=path>", "serve a spider file or directory as project NAME (repeatable)", collect)
    .option("--bind <address>", "address to listen on (default 127.0.0.1)")
    .option("--port <n>", "port to listen on (default 6800)")
    .option("--dir <dir>", "where the job table, logs, items and stats go (default netweir-serve)")
    .option("--max-jobs <n>", "jobs running at once (default: one per CPU)")
    .option("--keep <n>", "finished jobs remembered (default 100)")
    .option("--username <user>", "require HTTP basic auth (better: NETWEIR_SERVE_USERNAME)")
    .option("--password <password>", "require HTTP basic auth (better: NETWEIR_SERVE_PASSWORD)")
    .option("--insecure-no-auth", "allow --bind beyond this machine without a username and password")
    .option("--cancel-grace <seconds>", "seconds a cancelled job has before it is killed (default 30)")
    .option(
      "--schedule <project/spider@cron>",
      "run a spider periodically, e.g. 'shop/books@0 3 * * *' (repeatable)",
      collect,
    )
    .option("--alert-webhook <url>", "call this URL when a job ends (better: NETWEIR_SERVE_ALERT_WEBHOOK)")
    .option("--alert-start", "call the alert webhook when a job starts too")
    .option("--alert-timeout <seconds>", "seconds one webhook call may take (default 10)")
    .addHelpText("after", SERVE_HELP_AFTER)
    .action(async (flags) => {
      // Before serve.ts loads the job table's node:sqlite: Node would print an experimental-feature warning.
      runtime.quietSqliteWarning();
      const { runServe } = await importOwnModule<typeof import("./serve.ts")>(import.meta.url, "./serve.ts");
      context.setExitCode(await runServe(flags));
    });
}
