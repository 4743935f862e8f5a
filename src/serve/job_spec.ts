/**
 * What a job's process is given and how its log starts: the `netweir crawl` arguments, the spec file they go to
 * (readable by the service's user alone, deleted by the process once read), the first log line, and the log format a
 * job writes in.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { LogFormat } from "../log.ts";
import { makePrivateDir, PRIVATE_DIR, PRIVATE_FILE } from "./private_files.ts";
import { maskArgument, maskedPairs, maskSetting } from "./secrets.ts";
import type { JobRecord, ServePaths } from "./types.ts";

/**
 * `netweir crawl` arguments for a job; every path absolute, as the crawl runs in the project's directory. They go to
 * the job's process in its spec file (writeJobSpec), not on its command line.
 */
export function crawlArgs(job: JobRecord, paths: ServePaths): string[] {
  return [
    "crawl",
    job.file,
    "--spider",
    job.spider,
    // Scrapy's log format unless the job chose one (jobLogFormat says why).
    ...(givenLogFormat(job) === undefined ? ["-s", "log_format=scrapy"] : []),
    ...job.settings.flatMap((setting) => ["-s", setting]),
    ...job.args.flatMap((arg) => ["-a", arg]),
    "-o",
    resolve(paths.itemsFile(job)),
    "--stats-file",
    resolve(paths.statsFile(job)),
  ];
}

/**
 * What a job's process is given in its spec file: the `netweir crawl` arguments, and the project's data directory
 * and the job's settings, for checking its file settings again before the crawl opens them.
 */
export interface JobSpec {
  argv: string[];
  dataDir: string;
  settings: string[];
}

/**
 * Writes the job's crawl arguments to its spec file, readable by this user alone (the folder too), for
 * `netweir _serve_job SPEC` to read and delete: a command line can be read by every user of the machine, and a job's
 * settings may hold passwords (http_auth, a proxy's, a Redis URL's).
 */
export function writeJobSpec(job: JobRecord, paths: ServePaths): string {
  const file = paths.jobSpecFile(job);
  makePrivateDir(dirname(file));
  chmodSync(dirname(file), PRIVATE_DIR);
  const spec: JobSpec = { argv: crawlArgs(job, paths), dataDir: paths.dataDir(job.project), settings: job.settings };
  writeFileSync(file, JSON.stringify(spec), { mode: PRIVATE_FILE });
  return file;
}

/** The first line of a job's log: what it runs, with what, secrets masked. */
export function startLine(job: JobRecord): string {
  const settings = JSON.stringify(maskedPairs(job.settings, maskSetting));
  const args = JSON.stringify(maskedPairs(job.args, maskArgument));
  return `job ${job.id} of project ${job.project}: spider ${job.spider} from ${job.file}, settings ${settings}, ` +
    `arguments ${args}`;
}

/** The log_format a job was scheduled with, if any (the last one given wins, as with -s). */
function givenLogFormat(job: Pick<JobRecord, "settings">): string | undefined {
  return job.settings.map((pair) => /^(?:log_format|logFormat)=(.*)$/.exec(pair)?.[1]).filter(Boolean).at(-1);
}

/**
 * The log format of a job: Scrapy's unless the job was scheduled with another, because the tools scrapyd users read
 * logs with (ScrapydWeb's LogParser) find the time, the level and the progress lines only in Scrapy's format.
 */
export function jobLogFormat(job: Pick<JobRecord, "settings">): LogFormat {
  return (givenLogFormat(job) ?? "scrapy") === "scrapy" ? "scrapy" : "netweir";
}
