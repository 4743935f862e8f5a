/**
 * Undelivered alerts outlive the service: a real `netweir serve` (cli.ts) whose webhook server on 127.0.0.1 answers
 * 503 is killed with SIGKILL with two alerts it could not deliver (a job that finished, a job cancelled while it
 * waited); the job that was running is found lost at the restart. Started again on the same --dir with the server now
 * taking them, each of the three alerts arrives once, the status page says how many wait meanwhile, and the webhook's
 * secret path is in no log line. 1 to 6 s (two service starts, two short crawls), more on a loaded machine.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { AlertOutbox } from "../../src/serve/alert_outbox.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { poll, type ServeProcess, withRestarts } from "./_e2e_service.ts";
import type { ReceivedCall } from "./_webhook_receiver.ts";
import { startWebhookReceiver } from "./_webhook_receiver.ts";

const SECRET = "hooks/T01/s3cretT0ken";

const jobOf = (call: ReceivedCall) => String((call.body.job as Record<string, unknown>).id);

async function undelivered(service: ServeProcess): Promise<number> {
  const metrics = (await service.text("/metrics")).body;
  return Number(metrics.match(/^netweir_serve_alerts_undelivered (\d+)$/m)?.[1]);
}

Deno.test("alerts a refusing webhook did not take survive kill -9 and arrive once after the restart", async () => {
  const receiver = startWebhookReceiver();
  receiver.answerRest(503);
  try {
    await withRestarts(3, async ({ site, serveDir, gate, start, orphan }) => {
      const env = { NETWEIR_SERVE_ALERT_WEBHOOK: `${receiver.url}${SECRET}` };
      const first = await start(["--max-jobs", "1"], { env });
      const books = { project: "shop", spider: "books", site: site.url };
      await first.post("schedule.json", { ...books, jobid: "nightly" });
      assert.equal((await first.waitForJob("nightly", "finished")).outcome, "finished");
      // One job holds the only slot, so the next waits, and is cancelled while it waits.
      await first.post("schedule.json", { ...books, jobid: "held", gate });
      orphan((await first.waitForJob("held", "running")).pid!);
      await first.post("schedule.json", { ...books, jobid: "never" });
      assert.equal((await first.post("cancel.json", { project: "shop", job: "never" })).prevstate, "pending");

      await poll("a refused try of both alerts", () => {
        const refused = new Set(receiver.calls.filter((call) => call.answer === 503).map(jobOf));
        return Promise.resolve((refused.has("nightly") && refused.has("never")) || undefined);
      });
      assert.equal(await undelivered(first), 2);
      assert.match((await first.text("/")).body, /<strong>2 alerts are waiting for a webhook that has not taken them/);
      await first.process.waitFor(
        /webhook http:\/\/127\.0\.0\.1:\d+\/\*\*\* for job nightly ended: try 1 failed \(HTTP 503\), trying again in 2 s/,
      );

      await first.process.kill("SIGKILL");
      assert.equal((await first.process.wait()).signal, "SIGKILL");
      receiver.answerRest(200);
      const second = await start(["--max-jobs", "1"], { env });
      await poll("every alert delivered", async () => (await undelivered(second)) === 0 || undefined);
      const said = second.process.output().stderr;
      assert.match(said, /2 undelivered alerts from before this start: trying them again/);
      assert.doesNotMatch((await second.text("/")).body, /waiting for a webhook/);
      // Stopped cleanly: nothing is under way, so nothing more can be sent.
      await second.stop();
      const outbox = new AlertOutbox(servePaths(serveDir).jobsDb);
      try {
        assert.equal(outbox.count(), 0);
      } finally {
        outbox.close();
      }

      const taken = receiver.calls.filter((call) => call.answer === 200);
      assert.deepEqual(taken.map(jobOf).sort(), ["held", "never", "nightly"], "each alert taken once");
      const byJob = new Map(taken.map((call) => [jobOf(call), call]));
      const nightly = byJob.get("nightly")!;
      const refusedNightly = receiver.calls.find((call) => call.answer === 503 && jobOf(call) === "nightly")!;
      assert.equal(nightly.idempotencyKey, refusedNightly.idempotencyKey, "the same key on every try");
      assert.equal((nightly.body.job as Record<string, unknown>).outcome, "finished");
      const never = byJob.get("never")!.body;
      assert.match(String(never.text), /^netweir job never \(shop\/books\) on \S+ was cancelled before it started$/);
      assert.deepEqual(
        [never.event, (never.job as Record<string, unknown>).outcome, (never.job as Record<string, unknown>).log_url],
        ["ended", "cancelled", null],
      );
      assert.equal((byJob.get("held")!.body.job as Record<string, unknown>).outcome, "lost");

      for (const service of [first, second]) {
        const { stderr, stdout } = service.process.output();
        assert.ok(!`${stderr}${stdout}`.includes("s3cret"), "the webhook's path is in no log line");
      }
      await writeFile(gate, "");
    });
  } finally {
    await receiver.close();
  }
});
