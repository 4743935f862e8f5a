/**
 * What job alerts cost a running `netweir serve`. Prints figures; asserts nothing (they go in docs/design/serve.md
 * with this command):
 *
 * - the real service (`netweir serve`, a process of its own, --max-jobs 2) on a free port of 127.0.0.1, serving one
 *   project with the spider a user would write for a shop (tests/helpers/breaking_shop.ts: follow every product, yield
 *   its title and price; 10 products, markup intact), crawling a shop on 127.0.0.1;
 * - JOBS jobs scheduled at once, four times: without alerts, with every job alerting a webhook server on 127.0.0.1
 *   that answers at once, with every job alerting one that never answers (--alert-timeout 60, so each delivery
 *   hangs for the whole run), and with every job alerting one that answers 503 (each alert kept in jobs.db and tried
 *   again after 2 s, 10 s, 30 s ...);
 * - for each: the wall time from the first schedule.json to the last job finished, daemonstatus.json's latency
 *   sampled every 100 ms meanwhile (median, max), and for the answering webhook the delay from a job's end_time to
 *   its alert arriving (median, max); at the end, how many alerts wait undelivered (/metrics).
 *
 *   deno run -A scripts/bench/serve_alerts.ts [JOBS=10]
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { breakingShopSpider, startBreakingShop } from "../../tests/helpers/breaking_shop.ts";
import { startServe, stopQuietly } from "../../tests/serve/_e2e_service.ts";
import { startWebhookReceiver } from "../../tests/serve/_webhook_receiver.ts";
import { median } from "./median.ts";

const jobs = Number(runtime.args()[0] ?? 10);
const MOD_URL = new URL("../../mod.ts", import.meta.url).href;

interface Run {
  wallMs: number;
  statusMs: number[];
  alertDelayMs: number[];
  /** Alerts waiting for their webhook when the last job had finished. */
  undelivered: number;
}

async function run(label: string, shopUrl: string, webhook: string | undefined, extra: string[]): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-bench-alerts-"));
  const project = join(dir, "project");
  await mkdir(project);
  await writeFile(join(project, "shop.ts"), breakingShopSpider(MOD_URL, shopUrl));
  const service = await startServe(join(dir, "serve"), ["--project", `bench=${project}`, "--max-jobs", "2", ...extra]);
  const statusMs: number[] = [];
  try {
    const started = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < jobs; i++) {
      const setting = ["obey_robots_txt=false", ...(webhook ? [`alert_webhook=${webhook}`] : [])];
      const answer = await service.post("schedule.json", { project: "bench", spider: "Shop", setting });
      if (answer.status !== "ok") throw new Error(`${label}: ${JSON.stringify(answer)}`);
      ids.push(String(answer.jobid));
    }
    for (;;) {
      const before = performance.now();
      const status = await service.get("daemonstatus.json");
      statusMs.push(performance.now() - before);
      if (status.finished === jobs) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const wallMs = performance.now() - started;
    const listed = await service.jobs();
    const outcomes = new Set(listed.finished.map((job) => job.outcome));
    if (outcomes.size !== 1 || !outcomes.has("finished")) throw new Error(`${label}: outcomes ${[...outcomes]}`);
    const metrics = (await service.text("/metrics")).body;
    const undelivered = Number(metrics.match(/^netweir_serve_alerts_undelivered (\d+)$/m)?.[1]);
    return { wallMs, statusMs, alertDelayMs: [], undelivered };
  } finally {
    await stopQuietly(service);
    await rm(dir, { recursive: true, force: true });
  }
}

function report(label: string, result: Run): void {
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  let line = `${label.padEnd(28)} ${jobs} jobs in ${(result.wallMs / 1000).toFixed(1)} s; daemonstatus.json median ` +
    `${fmt(median(result.statusMs))}, max ${fmt(Math.max(...result.statusMs))} (${result.statusMs.length} samples)`;
  if (result.alertDelayMs.length > 0) {
    line += `; alert ${fmt(median(result.alertDelayMs))} after the job's end (max ${
      fmt(Math.max(...result.alertDelayMs))
    })`;
  }
  console.log(`${line}; ${result.undelivered} alerts undelivered at the end`);
}

const shop = startBreakingShop();
const answering = startWebhookReceiver();
const hung = startWebhookReceiver(Array.from({ length: jobs }, () => "hang" as const));
const refusing = startWebhookReceiver();
refusing.answerRest(503);
try {
  console.log(`${navigator.userAgent}, ${cpus().length} CPUs, load ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  report("no alerts", await run("none", shop.url, undefined, []));
  const withAlerts = await run("answering", shop.url, answering.url, []);
  const calls = await answering.waitForCalls(jobs);
  withAlerts.alertDelayMs = calls.map((call) => {
    const end = Date.parse(String((call.body.job as Record<string, unknown>).end_time));
    return call.at - end;
  });
  report("webhook answering", withAlerts);
  const stuck = await run("hung", shop.url, hung.url, ["--alert-timeout", "60"]);
  report("webhook never answering", stuck);
  console.log(`(the hung server held ${hung.calls.length} alert calls open while the jobs ran)`);
  report("webhook answering 503", await run("refusing", shop.url, refusing.url, []));
  console.log(`(the refusing server was called ${refusing.calls.length} times while the jobs ran)`);
} finally {
  await refusing.close();
  await hung.close();
  await answering.close();
  await shop.close();
}
