/**
 * Webhook delivery (src/serve/webhooks.ts, src/serve/alert_outbox.ts) against real HTTP servers on 127.0.0.1: taken at
 * once, tried again after a 500, a hung server's tries timed out and the alert given up at its maximum age, a 4xx not
 * tried again, a refused connection logged without the URL's secret path, an alert kept on disk across a sender's
 * stop and delivered by the next one with the same Idempotency-Key, the bound on how many wait, and the bound on
 * tries under way at once. About 3 s.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Logger } from "../../src/spider/types.ts";
import { AlertOutbox } from "../../src/serve/alert_outbox.ts";
import { spanText, WebhookSender } from "../../src/serve/webhooks.ts";
import { maskWebhookUrl } from "../../src/serve/secrets.ts";
import { withTempDir } from "./_setup.ts";
import { startWebhookReceiver } from "./_webhook_receiver.ts";

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: write("debug"), info: write("info"), warning: write("warning"), error: write("error") };
}

const SECRET_PATH = "services/T0001/B0002/s3cretT0ken";

/** A sender on an outbox of its own in memory, closed by the test's end. */
function sender(options: Omit<ConstructorParameters<typeof WebhookSender>[0], "outbox">) {
  const outbox = new AlertOutbox(":memory:");
  return { sender: new WebhookSender({ ...options, outbox }), outbox };
}

Deno.test("a webhook is posted as JSON and taken at the first try; nothing is logged and nothing stays queued", async () => {
  const receiver = startWebhookReceiver();
  const log = recordingLog();
  const { sender: webhooks, outbox } = sender({ log, retryDelaysMs: [10, 10] });
  try {
    assert.equal(await webhooks.send(`${receiver.url}${SECRET_PATH}`, { text: "hello", n: 1 }, "job a ended"), true);
    assert.equal(receiver.calls.length, 1);
    assert.equal(receiver.calls[0].path, `/${SECRET_PATH}`);
    assert.equal(receiver.calls[0].contentType, "application/json");
    assert.match(receiver.calls[0].idempotencyKey ?? "", /^netweir-alert-\d+$/);
    assert.deepEqual(receiver.calls[0].body, { text: "hello", n: 1 });
    assert.deepEqual(log.lines, []);
    assert.equal(outbox.count(), 0);
  } finally {
    await webhooks.stop(1_000);
    outbox.close();
    await receiver.close();
  }
});

Deno.test("a webhook answered 500 is tried again and delivered; the failure is logged with the URL masked", async () => {
  const receiver = startWebhookReceiver([500, 503]);
  const log = recordingLog();
  const { sender: webhooks, outbox } = sender({ log, retryDelaysMs: [50, 50] });
  try {
    assert.equal(await webhooks.send(`${receiver.url}${SECRET_PATH}`, { text: "x" }, "job b ended"), true);
    assert.equal(receiver.calls.length, 3);
    assert.deepEqual(receiver.calls.map((call) => call.body), [{ text: "x" }, { text: "x" }, { text: "x" }]);
    assert.equal(new Set(receiver.calls.map((call) => call.idempotencyKey)).size, 1, "one key for every try");
    const masked = maskWebhookUrl(`${receiver.url}${SECRET_PATH}`);
    assert.equal(masked, `${receiver.url}***`);
    assert.deepEqual(log.lines, [
      `warning webhook ${masked} for job b ended: try 1 failed (HTTP 500), trying again in 0.05 s`,
      `warning webhook ${masked} for job b ended: try 2 failed (HTTP 503), trying again in 0.05 s`,
      `info webhook ${masked} for job b ended delivered at try 3`,
    ]);
    assert.ok(log.lines.every((line) => !line.includes("s3cret")));
  } finally {
    await webhooks.stop(1_000);
    outbox.close();
    await receiver.close();
  }
});

Deno.test("a hung webhook server is tried until the alert's maximum age, then given up; a 404 is not tried again", async () => {
  const hung = startWebhookReceiver();
  hung.answerRest("hang");
  const missing = startWebhookReceiver([404]);
  const log = recordingLog();
  // Tries of 300 ms, 20 ms apart, for an alert that may live 700 ms: two or three tries, then given up.
  const { sender: webhooks, outbox } = sender({ log, timeoutMs: 300, retryDelaysMs: [20], maxAgeMs: 700 });
  try {
    const started = Date.now();
    assert.equal(await webhooks.send(hung.url, { text: "h" }, "job c ended"), false);
    assert.ok(Date.now() - started >= 600, "at least two tries of 300 ms each");
    assert.ok(hung.calls.length >= 2, `${hung.calls.length} tries`);
    assert.match(log.lines[0], /try 1 failed \(no answer within 0\.3 s\), trying again in 0\.02 s$/);
    assert.match(
      log.lines.at(-1)!,
      /try \d failed \(no answer within 0\.3 s\), giving up \(the next would be more than 0\.7 s after the alert\): the alert is dropped$/,
    );
    assert.equal(outbox.count(), 0);
    const before = log.lines.length;
    assert.equal(await webhooks.send(missing.url, { text: "m" }, "job d ended"), false);
    assert.equal(missing.calls.length, 1, "a 4xx says the payload or URL is wrong: trying again would not help");
    assert.match(log.lines[before], /try 1 failed \(HTTP 404\), giving up \(the server refused it\)/);
  } finally {
    await webhooks.stop(1_000);
    outbox.close();
    await hung.close();
    await missing.close();
  }
});

Deno.test("a refused connection is tried again and logged without the URL's secret path; stop() waits at most its limit", async () => {
  const log = recordingLog();
  // A port that was just free: nothing listens there.
  const closed = startWebhookReceiver();
  const url = `${closed.url}${SECRET_PATH}`;
  await closed.close();
  const { sender: webhooks, outbox } = sender({ log, timeoutMs: 500, retryDelaysMs: [10], maxAgeMs: 100 });
  assert.equal(await webhooks.send(url, { text: "r" }, "job e ended"), false);
  assert.ok(log.lines.length >= 2, log.lines.join("\n"));
  // Given up by the try that found its next wait past the age, or by the look at the table after it (a busy machine).
  assert.match(log.lines.at(-1)!, /try \d failed \(.+\), giving up|dropped undelivered after \d+ tries/);
  // Deno's fetch names the URL in its error: masked like every other mention of it.
  for (const line of log.lines) assert.ok(!line.includes("s3cret"), line);
  await webhooks.stop(100);
  outbox.close();
  const hung = startWebhookReceiver(["hang"]);
  const slow = sender({ log, timeoutMs: 5_000, retryDelaysMs: [] });
  try {
    void slow.sender.send(hung.url, { text: "s" }, "job f ended");
    await hung.waitForCalls(1);
    const started = Date.now();
    await slow.sender.stop(100);
    assert.ok(Date.now() - started < 4_000, "stop gave up waiting at its limit, not at the 5 s timeout");
    assert.match(log.lines.at(-1)!, /1 webhook calls still under way at stop: their alerts are tried again/);
    assert.equal(slow.outbox.count(), 1, "the alert under way stays queued");
  } finally {
    slow.outbox.close();
    await hung.close();
  }
});

Deno.test("an alert not delivered before a stop is delivered once by the next sender on the same file, with the same key", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "jobs.db");
    const receiver = startWebhookReceiver();
    receiver.answerRest(503);
    const log = recordingLog();
    try {
      const first = new AlertOutbox(file);
      const before = new WebhookSender({ outbox: first, log, retryDelaysMs: [60_000] });
      void before.send(`${receiver.url}${SECRET_PATH}`, { text: "kept" }, "job g ended");
      await receiver.waitForCalls(1);
      await before.stop(1_000);
      first.close();
      assert.match(log.lines[0], /try 1 failed \(HTTP 503\), trying again in 1 min$/);

      receiver.answerRest(200);
      const second = new AlertOutbox(file);
      assert.equal(second.count(), 1);
      // Due in a minute by its backoff, but a start tries every waiting alert at once.
      const after = new WebhookSender({ outbox: second, log, retryDelaysMs: [60_000] });
      after.resume();
      await receiver.waitForCalls(2);
      await after.stop(1_000);
      assert.equal(second.count(), 0);
      second.close();
      assert.deepEqual(receiver.calls.map((call) => call.answer), [503, 200]);
      assert.equal(receiver.calls[1].idempotencyKey, receiver.calls[0].idempotencyKey);
      assert.deepEqual(receiver.calls[1].body, { text: "kept" });
      assert.match(log.lines[1], /^info 1 undelivered alerts from before this start: trying them again$/);
      assert.match(log.lines[2], /delivered at try 2$/);
    } finally {
      await receiver.close();
    }
  });
});

Deno.test("past the bound on waiting alerts the oldest is dropped, and one past its age at a start too, each logged", async () => {
  const receiver = startWebhookReceiver();
  receiver.answerRest(503);
  const log = recordingLog();
  let now = Date.UTC(2026, 11, 5);
  const { sender: webhooks, outbox } = sender({ log, retryDelaysMs: [3600_000], maxQueued: 2, now: () => now });
  try {
    const fates = ["first", "second", "third"].map((name) =>
      webhooks.send(`${receiver.url}${SECRET_PATH}`, { text: name }, `job ${name} ended`)
    );
    assert.equal(await fates[0], false, "the oldest goes when a third arrives");
    assert.match(
      log.lines.find((line) => line.startsWith("error"))!,
      /^error webhook http:\/\/127\.0\.0\.1:\d+\/\*\*\* for job first ended: dropped undelivered after [01] tries \(more than 2 alerts wait, the oldest go first/,
    );
    await receiver.waitForCalls(2);
    await webhooks.stop(1_000);
    assert.equal(outbox.count(), 2);

    // A day later, with the server still down: a new start gives both up for their age, before trying them.
    now += 25 * 3600_000;
    const calls = receiver.calls.length;
    const later = new WebhookSender({ outbox, log, now: () => now });
    later.resume();
    assert.equal(outbox.count(), 0);
    const dropped = log.lines.filter((line) => line.includes("not delivered within 24 h"));
    assert.equal(dropped.length, 2, log.lines.join("\n"));
    assert.match(dropped[0], /dropped undelivered after 1 tries \(not delivered within 24 h, last failure: HTTP 503\)/);
    await later.stop(1_000);
    assert.equal(receiver.calls.length, calls, "not tried again");
    for (const line of log.lines) assert.ok(!line.includes("s3cret"), line);
  } finally {
    outbox.close();
    await receiver.close();
  }
});

Deno.test("at most 16 tries are under way at once: alerts queued for a hung server wait their turn", async () => {
  const hung = startWebhookReceiver();
  hung.answerRest("hang");
  const log = recordingLog();
  const { sender: webhooks, outbox } = sender({ log, timeoutMs: 30_000 });
  try {
    for (let i = 0; i < 20; i++) void webhooks.send(hung.url, { text: `n${i}` }, `job n${i} ended`);
    await hung.waitForCalls(16);
    // Long enough for four more connections to arrive if nothing held them back (they are local and immediate).
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(hung.calls.length, 16);
    assert.equal(outbox.count(), 20, "the four others wait in the outbox");
  } finally {
    await hung.close();
    await webhooks.stop(2_000);
    outbox.close();
  }
});

Deno.test("waits are written in the unit a reader takes in at once", () => {
  assert.deepEqual([2_000, 90_000, 1_800_000, 24 * 3600_000].map(spanText), ["2 s", "1.5 min", "30 min", "24 h"]);
});

Deno.test("a webhook URL is shown as its scheme and host only", () => {
  assert.equal(maskWebhookUrl("https://hooks.slack.com/services/T1/B2/xyz"), "https://hooks.slack.com/***");
  assert.equal(maskWebhookUrl("https://me:pw@chat.example:8065/hooks/abc?x=1"), "https://chat.example:8065/***");
  assert.equal(maskWebhookUrl("http://127.0.0.1:9000/"), "http://127.0.0.1:9000/");
  assert.equal(maskWebhookUrl("not a url with s3cret"), "***");
  assert.equal(maskWebhookUrl("null"), "null");
});
