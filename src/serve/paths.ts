/** The layout of --dir: jobs.db, logs/, items/, stats/ and data/, one folder per project and spider; run/ for job specs. */
import { join } from "node:path";
import type { JobRecord, ServePaths } from "./types.ts";

type JobKey = Pick<JobRecord, "project" | "spider" | "id">;

export function servePaths(dir: string): ServePaths {
  return {
    dir,
    jobsDb: join(dir, "jobs.db"),
    logFile: (job: JobKey) => join(dir, "logs", job.project, job.spider, `${job.id}.log`),
    itemsFile: (job: JobKey) => join(dir, "items", job.project, job.spider, `${job.id}.jl`),
    statsFile: (job: JobKey) => join(dir, "stats", job.project, job.spider, `${job.id}.json`),
    jobSpecFile: (job: Pick<JobKey, "id">) => join(dir, "run", `${job.id}.json`),
    dataDir: (project: string) => join(dir, "data", project),
  };
}
