/** What the serve app's tests share: the fixture projects, a temp --dir, an app over a FakeJobs. */
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hono } from "hono";
import { createApp } from "../../src/serve/app.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { createProjectRegistry } from "../../src/serve/projects.ts";
import type { BasicAuth } from "../../src/serve/security.ts";
import type { JobRecord, ProjectRegistry, ServePaths } from "../../src/serve/types.ts";
import { FakeJobs } from "./_fake_jobs.ts";

/** tests/serve/fixtures, absolute. */
export const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));

/** shop: a directory (books with proxies and a profile, plain, broken.ts); news: one file (feeds, a hostile name). */
export function fixtureRegistry(): ProjectRegistry {
  return createProjectRegistry(["shop", "news=news/feeds.ts"], FIXTURES);
}

/** Runs `body` with a fresh temporary directory (its real path), removed afterwards. */
export async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "netweir-serve-")));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface TestApp {
  app: Hono;
  jobs: FakeJobs;
  paths: ServePaths;
  dir: string;
}

/** An app over FakeJobs and the fixture projects, with a temp --dir. */
export function withApp<T>(
  options: { loopback?: boolean; auth?: BasicAuth; registry?: ProjectRegistry },
  body: (setup: TestApp) => Promise<T>,
): Promise<T> {
  return withTempDir((dir) => {
    const jobs = new FakeJobs();
    const paths = servePaths(dir);
    const app = createApp({
      jobs,
      registry: options.registry ?? fixtureRegistry(),
      paths,
      nodeName: "box",
      loopback: options.loopback ?? true,
      auth: options.auth,
    });
    return body({ app, jobs, paths, dir });
  });
}

/** A form-encoded POST body from pairs (repeated names allowed). */
export function form(pairs: [string, string][]): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(pairs).toString(),
  };
}

/** A job record as the job service would hold it, for jobs the app did not schedule itself. */
export function record(fields: Partial<JobRecord> & Pick<JobRecord, "id" | "project" | "spider">): JobRecord {
  return {
    file: "/x.ts",
    cwd: "/",
    priority: 0,
    settings: [],
    args: [],
    state: "pending",
    outcome: null,
    createdAt: Date.UTC(2024, 0, 1),
    startedAt: null,
    endedAt: null,
    pid: null,
    schedule: null,
    ...fields,
  };
}

/** Writes a file, making the directories it needs. */
export async function writeAt(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}
