/**
 * The alert options and settings, checked before anything starts: --alert-webhook or NETWEIR_SERVE_ALERT_WEBHOOK
 * must be an http(s) URL and is refused without showing its secret path; the alert_webhook setting the same way at
 * schedule time; a spider's own webhook is copied into its jobs by schedule.json. About 1 s (one child process reads
 * the spider file).
 */
import assert from "node:assert/strict";
import { UsageError } from "../../src/errors.ts";
import { checkServeOptions } from "../../src/serve/options.ts";
import { JobAlerts } from "../../src/serve/alerts.ts";
import { Settings } from "../../src/settings/settings.ts";
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { servePaths } from "../../src/serve/paths.ts";
import { createProjectRegistry } from "../../src/serve/projects.ts";
import { checkSchedule } from "../../src/serve/schedule.ts";
import { record, withTempDir } from "./_setup.ts";
import { startWebhookReceiver } from "./_webhook_receiver.ts";

const noEnv = () => undefined;
const silent = { debug() {}, info() {}, warning() {}, error() {} };

Deno.test("the service's webhook comes from --alert-webhook or NETWEIR_SERVE_ALERT_WEBHOOK and must be http(s)", () => {
  const url = "https://hooks.slack.com/services/T1/B2/s3cret";
  assert.equal(checkServeOptions({ alertWebhook: url }, noEnv).alertWebhook, url);
  const env = (name: string) => name === "NETWEIR_SERVE_ALERT_WEBHOOK" ? url : undefined;
  assert.equal(checkServeOptions({}, env).alertWebhook, url);
  assert.equal(checkServeOptions({}, noEnv).alertWebhook, undefined);
  assert.equal(checkServeOptions({}, noEnv).alertTimeout, 10);
  assert.equal(checkServeOptions({}, noEnv).alertStart, false);
  assert.throws(
    () => checkServeOptions({ alertWebhook: "ftp://chat.example/hooks/s3cret" }, noEnv),
    (error: Error) =>
      error instanceof UsageError &&
      error.message === "--alert-webhook must be an http:// or https:// URL, not ftp://chat.example/***",
  );
  assert.throws(() => checkServeOptions({ alertTimeout: "0" }, noEnv), /--alert-timeout must be between 1 and 600/);
});

Deno.test("the alert_webhook setting must be an http(s) URL; alert_start is true or false", () => {
  assert.equal(
    Settings.fromPairs(["alert_webhook=http://127.0.0.1:9/h"]).given("alertWebhook"),
    "http://127.0.0.1:9/h",
  );
  assert.equal(Settings.fromPairs(["alert_webhook=null"]).given("alertWebhook"), null);
  assert.throws(() => Settings.fromPairs(["alert_webhook=hooks.example/x"]), /alert_webhook.*http:\/\/ or https:\/\//);
  assert.equal(Settings.fromPairs(["alert_start=true"]).given("alertStart"), true);
  assert.throws(() => Settings.fromPairs(["alert_start=sometimes"]), /alert_start/);
});

Deno.test("a job's own webhook wins over the service's; alert_webhook=null turns the service's off for it", () => {
  const alerts = new JobAlerts({ nodeName: "box", webhook: "http://127.0.0.1:9/service", log: silent });
  const job = (settings: string[]) => record({ id: "j", project: "shop", spider: "books", settings });
  assert.equal(alerts.webhookOf(job([])), "http://127.0.0.1:9/service");
  assert.equal(alerts.webhookOf(job(["alert_webhook=http://127.0.0.1:9/own"])), "http://127.0.0.1:9/own");
  assert.equal(
    alerts.webhookOf(job(["alertWebhook=http://127.0.0.1:9/a", "alert_webhook=http://127.0.0.1:9/b"])),
    "http://127.0.0.1:9/b",
  );
  assert.equal(alerts.webhookOf(job(["alert_webhook=null"])), undefined);
  const none = new JobAlerts({ nodeName: "box", log: silent });
  assert.equal(none.webhookOf(job([])), undefined);
});

Deno.test("schedule.json copies the spider's own alert settings into the job, unless the request gives its own", async () => {
  await withTempDir(async (dir) => {
    const mod = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);
    await writeFile(
      join(dir, "alerted.ts"),
      `import { Settings, Spider } from ${mod};
export class Alerted extends Spider {
  override settings = new Settings({ alertWebhook: "http://127.0.0.1:9/spider-hook", alertStart: true });
}
`,
    );
    const context = { registry: createProjectRegistry([`p=${dir}`], dir), paths: servePaths(join(dir, "serve")) };
    const schedule = (extra: [string, string][]) =>
      checkSchedule(new URLSearchParams([["project", "p"], ["spider", "Alerted"], ...extra]), context);
    assert.deepEqual((await schedule([])).settings, [
      "alert_webhook=http://127.0.0.1:9/spider-hook",
      "alert_start=true",
    ]);
    assert.deepEqual((await schedule([["setting", "alert_webhook=null"], ["setting", "alert_start=false"]])).settings, [
      "alert_webhook=null",
      "alert_start=false",
    ]);
    const own = await schedule([["setting", "alert_webhook=http://127.0.0.1:9/job-hook"]]);
    assert.deepEqual(own.settings, ["alert_webhook=http://127.0.0.1:9/job-hook", "alert_start=true"]);
    const alerts = new JobAlerts({ nodeName: "box", webhook: "http://127.0.0.1:9/service", log: silent });
    const job = (settings: string[]) => record({ id: "j", project: "p", spider: "Alerted", settings });
    assert.equal(alerts.webhookOf(job((await schedule([])).settings)), "http://127.0.0.1:9/spider-hook");
  });
});

Deno.test("--alert-start sends the start of every job to the service's webhook, unless a job says alert_start=false", async () => {
  const receiver = startWebhookReceiver();
  try {
    const alerts = new JobAlerts({ nodeName: "box", webhook: receiver.url, alertStart: true, log: silent });
    const job = (id: string, settings: string[]) =>
      record({ id, project: "p", spider: "s", state: "running", startedAt: Date.UTC(2026, 0, 1), settings });
    alerts.started(job("quiet", ["alert_start=false"]));
    alerts.started(job("loud", []));
    alerts.ended({ ...job("quiet", ["alert_start=false"]), state: "finished", outcome: "finished" }, null);
    const calls = await receiver.waitForCalls(2);
    await alerts.stop(5_000);
    assert.deepEqual(
      receiver.calls.map((call) => [call.body.event, (call.body.job as Record<string, unknown>).id]).sort(),
      [["ended", "quiet"], ["started", "loud"]],
    );
    assert.equal(calls.length, 2);
    const quiet = new JobAlerts({ nodeName: "box", webhook: receiver.url, log: silent });
    quiet.started(job("default", []));
    await quiet.stop(5_000);
    assert.equal(receiver.calls.length, 2, "no start alert unless asked for");
  } finally {
    await receiver.close();
  }
});
