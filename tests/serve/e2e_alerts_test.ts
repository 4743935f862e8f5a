/**
 * Alerts and monitors through a real `netweir serve` (cli.ts) running real crawl processes against a shop on
 * 127.0.0.1 whose product pages change their markup halfway (tests/helpers/breaking_shop.ts), with webhooks received
 * by servers on 127.0.0.1. The spider's coverage monitor fails: the job is monitor_failed in listjobs.json, on its
 * page and in /metrics, its alert says so (after a 500 and a retry), and its log ends in Scrapy's form for LogParser.
 * A hung webhook server holds neither the next job nor requests. Two services, four jobs: about 30 s.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import { breakingShopSpider, startBreakingShop } from "../helpers/breaking_shop.ts";
import { readLikeLogParser } from "../helpers/logparser_reading.ts";
import { startServe, stopQuietly } from "./_e2e_service.ts";
import type { ServeProcess } from "./_e2e_service.ts";
import { withTempDir } from "./_setup.ts";
import type { AlertPayload } from "../../src/serve/alert_payload.ts";
import { startWebhookReceiver } from "./_webhook_receiver.ts";

const MOD_URL = new URL("../../mod.ts", import.meta.url).href;
const SECRET = "hooks/s3cretPathT0ken";

/** A project folder holding the breaking shop's spider, with a coverage monitor on the spider itself. */
async function writeProject(dir: string, shopUrl: string): Promise<string> {
  const project = join(dir, "project");
  await mkdir(project);
  const monitors = `override settings = new Settings({ monitors: { coverage: [{ field: "title", min: 1 }] } });`;
  await writeFile(join(project, "shop.ts"), breakingShopSpider(MOD_URL, shopUrl, monitors));
  return project;
}

async function scheduled(service: ServeProcess, form: Record<string, string | string[]>): Promise<string> {
  const answer = await service.post("schedule.json", { project: "alerts", spider: "Shop", ...form });
  assert.equal(answer.status, "ok", JSON.stringify(answer));
  return String(answer.jobid);
}

Deno.test("a job whose selector breaks halfway is monitor_failed everywhere, and its alert says so after a retry", async () => {
  const shop = startBreakingShop(6);
  const own = startWebhookReceiver([500]);
  const serviceWide = startWebhookReceiver();
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const project = await writeProject(dir, shop.url);
      service = await startServe(join(dir, "serve"), ["--project", `alerts=${project}`, "--max-jobs", "1"], {
        env: { NETWEIR_SERVE_ALERT_WEBHOOK: `${serviceWide.url}service-wide` },
      });
      const broken = await scheduled(service, {
        jobid: "broken-1",
        setting: [`alert_webhook=${own.url}${SECRET}`, "obey_robots_txt=false"],
      });
      // The same spider with its monitors turned off for this one job: finished, alerted to the service's webhook.
      const unmonitored = await scheduled(service, {
        jobid: "plain-2",
        setting: ["monitors=null", "obey_robots_txt=false"],
      });

      const job = await service.waitForJob(broken, "finished");
      assert.equal(job.outcome, "monitor_failed");
      assert.equal((await service.waitForJob(unmonitored, "finished")).outcome, "finished");

      // The alert: a 500 first, then taken at the second try (2 s later).
      const [first, second] = await own.waitForCalls(2);
      assert.deepEqual(first.body, second.body, "the same payload again");
      assert.equal(second.path, `/${SECRET}`);
      const payload = second.body as unknown as AlertPayload;
      assert.equal(payload.event, "ended");
      assert.match(
        payload.text,
        /^netweir job broken-1 \(alerts\/Shop\) on \S+ finished, but a monitor failed\. 11 pages, 10 items, 0 errors in \d+ s\. coverage\.title: title in 5 of 10 items \(50%\), fewer than 100%$/,
      );
      assert.equal(payload.job.outcome, "monitor_failed");
      assert.equal(payload.job.log_url, "/logs/alerts/Shop/broken-1.log");
      assert.equal(payload.job.settings.alert_webhook, `${own.url}***`);
      assert.deepEqual(payload.monitors?.failed.map((one) => one.monitor), ["coverage.title"]);
      assert.equal(payload.stats?.items, 10);
      // The job with its own webhook did not go to the service's; the other did, and only there.
      const [plain] = await serviceWide.waitForCalls(1);
      assert.equal(plain.body.event, "ended");
      assert.equal((plain.body.job as Record<string, unknown>).id, "plain-2");
      assert.equal(own.calls.length, 2);

      const page = await service.text(`/job/alerts/${broken}`);
      assert.match(page.body, /<span class="outcome monitor_failed">monitor_failed<\/span>/);
      assert.match(page.body, /Finished, but 1 of 1 monitors failed\./);
      assert.match(
        page.body,
        /<code>coverage\.title<\/code><\/td><td class="outcome failed">failed<\/td><td>title in 5 of 10/,
      );
      const metrics = await service.text("/metrics");
      assert.match(metrics.body, /^netweir_serve_finished_jobs\{outcome="monitor_failed"\} 1$/m);
      assert.match(metrics.body, /^netweir_serve_finished_jobs\{outcome="finished"\} 1$/m);
      const status = await service.text("/?outcome=monitor_failed");
      assert.match(status.body, /broken-1/);
      assert.doesNotMatch(status.body, /plain-2/);

      // The job's log, as LogParser reads it.
      const log = await service.text(job.log_url);
      const reading = readLikeLogParser(log.body);
      assert.deepEqual([reading.pages, reading.items, reading.finishReason], [11, 10, "finished"]);
      assert.match(log.body, /\[netweir\] INFO: Spider closed \(finished\)\n$/);

      // The secret path is nowhere: the job's log, listjobs.json, the pages, the service's own log.
      const everything = [
        log.body,
        page.body,
        status.body,
        metrics.body,
        JSON.stringify(await service.jobs()),
        service.process.output().stderr,
      ];
      for (const text of everything) assert.ok(!text.includes("s3cret"), text.slice(0, 400));
      assert.match(
        service.process.output().stderr,
        new RegExp(
          `webhook ${
            own.url.replaceAll(".", "\\.")
          }\\*\\*\\* for job broken-1 ended: try 1 failed \\(HTTP 500\\), trying again in 2 s`,
        ),
      );
    });
  } finally {
    await stopQuietly(service);
    await own.close();
    await serviceWide.close();
    await shop.close();
  }
});

Deno.test("a hung webhook server holds neither the next job, nor its alerts, nor requests", async () => {
  const shop = startBreakingShop();
  const hung = startWebhookReceiver(["hang"]);
  const good = startWebhookReceiver();
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const project = await writeProject(dir, shop.url);
      // One job at a time, and a try may hang for a minute: the second job runs only after the first has ended.
      service = await startServe(join(dir, "serve"), [
        "--project",
        `alerts=${project}`,
        "--max-jobs",
        "1",
        "--alert-timeout",
        "60",
      ]);
      const first = await scheduled(service, { setting: [`alert_webhook=${hung.url}`, "obey_robots_txt=false"] });
      assert.equal((await service.waitForJob(first, "finished")).outcome, "finished");
      await hung.waitForCalls(1);
      const second = await scheduled(service, {
        setting: [`alert_webhook=${good.url}`, "alert_start=true", "obey_robots_txt=false"],
      });
      assert.equal((await service.waitForJob(second, "finished")).outcome, "finished");
      const [started, ended] = await good.waitForCalls(2);
      assert.deepEqual([started.body.event, ended.body.event], ["started", "ended"]);
      assert.equal((ended.body.job as Record<string, unknown>).id, second);
      assert.equal(started.body.stats, null);
      // All the while the first job's webhook had not answered: its one try is still under way.
      assert.equal(hung.calls.length, 1);
      assert.doesNotMatch(service.process.output().stderr, /for job \S+ ended: try 1 failed/);
      assert.equal((await service.get("daemonstatus.json")).finished, 2);
    });
  } finally {
    // Released first: the service's stop waits for a delivery under way up to the alert timeout.
    await hung.close();
    await stopQuietly(service);
    await good.close();
    await shop.close();
  }
});
