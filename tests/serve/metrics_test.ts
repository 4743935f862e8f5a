/**
 * GET /metrics read back by a Prometheus text-format parser from npm (parse-prometheus-text-format): from a real
 * service with a running job, a finished one and a schedule, and behind the service's login.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
// A test-only library, so not in deno.json's imports (each of those becomes a dependency of the npm package).
// deno-lint-ignore no-import-prefix
import parsePrometheus from "npm:parse-prometheus-text-format@1.1.1";
import { renderMetrics } from "../../src/serve/metrics.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { poll, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";
import { record, withTempDir } from "./_setup.ts";

interface Family {
  name: string;
  help: string;
  type: string;
  metrics: { value: string; labels?: Record<string, string> }[];
}

/**
 * Parses an exposition and checks what the lenient parser lets through: names as the format allows them, every
 * family a gauge with its help, every value a number.
 */
function parseMetrics(text: string): Map<string, Family> {
  const families = parsePrometheus(text) as Family[];
  for (const family of families) {
    assert.match(family.name, /^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
    assert.equal(family.type, "GAUGE", family.name);
    assert.notEqual(family.help, "", family.name);
    for (const metric of family.metrics) {
      assert.ok(metric.value === "NaN" || Number.isFinite(Number(metric.value)), `${family.name} ${metric.value}`);
    }
  }
  return new Map(families.map((family) => [family.name, family]));
}

/** The value of the sample of `name` whose labels include `labels`. */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = families.get(name)?.metrics.find((metric) =>
    Object.entries(labels).every(([key, wanted]) => metric.labels?.[key] === wanted)
  );
  return found === undefined ? undefined : Number(found.value);
}

const NO_LOGIN = { NETWEIR_SERVE_USERNAME: undefined, NETWEIR_SERVE_PASSWORD: undefined };

Deno.test("/metrics gives jobs by state, a running job's pages, items and rate, schedules and memory, parsed by a Prometheus parser", async () => {
  const site = await startFixtureSite({ books: 6 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--max-jobs", "2"], { env: NO_LOGIN });
      const gate = join(dir, "gate");
      const books = { project: "shop", spider: "books", site: site.url };
      await service.post("schedule.json", { ...books, jobid: "done" });
      await service.waitForJob("done", "finished");
      await service.post("schedule.json", { ...books, jobid: "slow", gate });
      await service.post("addschedule.json", {
        ...books,
        schedule: "nightly",
        cron: "0 3 * * *",
        timezone: "UTC",
      });
      const response = await fetch(`${service.url}metrics`);
      assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
      await response.body?.cancel();
      // The running job's stats come every few seconds: asked until its pages are there.
      const families = await poll("the running job's pages in /metrics", async () => {
        const parsed = parseMetrics(await (await fetch(`${service!.url}metrics`)).text());
        return (value(parsed, "netweir_serve_job_pages", { job: "slow" }) ?? 0) >= 1 ? parsed : undefined;
      });
      assert.equal(value(families, "netweir_serve_jobs", { state: "running" }), 1);
      assert.equal(value(families, "netweir_serve_jobs", { state: "finished" }), 1);
      assert.equal(value(families, "netweir_serve_jobs", { state: "pending" }), 0);
      assert.equal(value(families, "netweir_serve_finished_jobs", { outcome: "finished" }), 1);
      const slow = { job: "slow", project: "shop", spider: "books" };
      assert.ok(value(families, "netweir_serve_job_items", slow)! >= 0);
      assert.equal(value(families, "netweir_serve_job_errors", slow), 0);
      assert.ok(families.get("netweir_serve_job_pages_per_second")?.metrics.some((m) => m.labels?.job === "slow"));
      assert.equal(
        value(families, "netweir_serve_job_pages", { job: "done" }),
        undefined,
        "finished jobs are not per job",
      );
      const nightly = { schedule: "nightly", project: "shop", spider: "books" };
      assert.equal(value(families, "netweir_serve_schedule_paused", nightly), 0);
      const next = value(families, "netweir_serve_schedule_next_run_time_seconds", nightly)!;
      assert.equal(new Date(next * 1000).toISOString().slice(11), "03:00:00.000Z");
      assert.equal(value(families, "netweir_serve_schedule_last_outcome", { ...nightly, outcome: "none" }), 1);
      assert.ok(value(families, "netweir_serve_memory_rss_bytes")! > 10_000_000);
      await writeFile(gate, "");
      await service.waitForJob("slow", "finished");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("/metrics is behind the login and refused to web pages, as every endpoint is", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), [], {
        env: { NETWEIR_SERVE_USERNAME: "me", NETWEIR_SERVE_PASSWORD: "s3cret-pass" },
      });
      const url = `${service.url}metrics`;
      const anonymous = await fetch(url);
      await anonymous.body?.cancel();
      assert.equal(anonymous.status, 401);
      const login = { Authorization: `Basic ${btoa("me:s3cret-pass")}` };
      const fromPage = await fetch(url, { headers: { ...login, Origin: "http://evil.example" } });
      await fromPage.body?.cancel();
      assert.equal(fromPage.status, 403);
      const ok = await fetch(url, { headers: login });
      assert.equal(ok.status, 200);
      const text = await ok.text();
      assert.equal(value(parseMetrics(text), "netweir_serve_jobs", { state: "finished" }), 0);
      assert.doesNotMatch(text, /s3cret/);
    });
  } finally {
    await stopQuietly(service);
  }
});

Deno.test("label values with a quote, a backslash or a line break are escaped and read back as they were", () => {
  const odd = 'we"ird\\spi\nder';
  const text = renderMetrics({
    jobs: [record({ id: "j1", project: "shop", spider: odd, state: "running", startedAt: 1_000 })],
    stats: new Map([["j1", { pages: 7, items: 3, errors: 1, series: [[0, 0, 0], [5, 5, 2], [10, 7, 3]] }]]),
    schedules: [],
    jobById: () => undefined,
    memoryRss: 1234,
  });
  const families = parseMetrics(text);
  assert.equal(value(families, "netweir_serve_job_pages", { spider: odd }), 7);
  assert.equal(value(families, "netweir_serve_job_pages_per_second", { spider: odd }), 0.4);
  assert.equal(value(families, "netweir_serve_job_start_time_seconds", { spider: odd }), 1);
  assert.equal(families.get("netweir_serve_schedule_paused"), undefined, "no schedules, no family");
});
