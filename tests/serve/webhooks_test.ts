/**
 * Webhook delivery (src/serve/webhooks.ts) against real HTTP servers on 127.0.0.1: taken at once, tried again after
 * a 500, given up on after a hung server's timeouts, a 4xx not tried again, and the URL's secret path never in the
 * log. About 2 s.
 */
import assert from "node:assert/strict";
import type { Logger } from "../../src/spider/types.ts";
import { WebhookSender } from "../../src/serve/webhooks.ts";
import { maskWebhookUrl } from "../../src/serve/secrets.ts";
import { startWebhookReceiver } from "./_webhook_receiver.ts";

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: write("debug"), info: write("info"), warning: write("warning"), error: write("error") };
}

const SECRET_PATH = "services/T0001/B0002/s3cretT0ken";

Deno.test("a webhook is posted as JSON and taken at the first try; nothing is logged", async () => {
  const receiver = startWebhookReceiver();
  const log = recordingLog();
  try {
    const sender = new WebhookSender({ log, retryDelaysMs: [10, 10] });
    assert.equal(await sender.send(`${receiver.url}${SECRET_PATH}`, { text: "hello", n: 1 }, "job a ended"), true);
    assert.equal(receiver.calls.length, 1);
    assert.equal(receiver.calls[0].path, `/${SECRET_PATH}`);
    assert.equal(receiver.calls[0].contentType, "application/json");
    assert.deepEqual(receiver.calls[0].body, { text: "hello", n: 1 });
    assert.deepEqual(log.lines, []);
  } finally {
    await receiver.close();
  }
});

Deno.test("a webhook answered 500 is tried again and delivered; the failure is logged with the URL masked", async () => {
  const receiver = startWebhookReceiver([500, 503]);
  const log = recordingLog();
  try {
    const sender = new WebhookSender({ log, retryDelaysMs: [50, 50] });
    assert.equal(await sender.send(`${receiver.url}${SECRET_PATH}`, { text: "x" }, "job b ended"), true);
    assert.equal(receiver.calls.length, 3);
    assert.deepEqual(receiver.calls.map((call) => call.body), [{ text: "x" }, { text: "x" }, { text: "x" }]);
    const masked = maskWebhookUrl(`${receiver.url}${SECRET_PATH}`);
    assert.equal(masked, `${receiver.url}***`);
    assert.deepEqual(log.lines, [
      `warning webhook ${masked} for job b ended: try 1 of 3 failed (HTTP 500), trying again in 0.05 s`,
      `warning webhook ${masked} for job b ended: try 2 of 3 failed (HTTP 503), trying again in 0.05 s`,
      `info webhook ${masked} for job b ended delivered at try 3`,
    ]);
    assert.ok(log.lines.every((line) => !line.includes("s3cret")));
  } finally {
    await receiver.close();
  }
});

Deno.test("a hung webhook server is given up on after each try's timeout; a 404 is not tried again", async () => {
  const hung = startWebhookReceiver(["hang", "hang"]);
  const missing = startWebhookReceiver([404]);
  const log = recordingLog();
  try {
    const sender = new WebhookSender({ log, timeoutMs: 300, retryDelaysMs: [20] });
    const started = Date.now();
    assert.equal(await sender.send(hung.url, { text: "h" }, "job c ended"), false);
    assert.ok(Date.now() - started >= 600, "two tries of 300 ms each");
    assert.equal(hung.calls.length, 2);
    assert.match(log.lines[0], /try 1 of 2 failed \(no answer within 0\.3 s\), trying again/);
    assert.match(log.lines[1], /try 2 of 2 failed \(no answer within 0\.3 s\), giving up$/);
    assert.equal(await sender.send(missing.url, { text: "m" }, "job d ended"), false);
    assert.equal(missing.calls.length, 1, "a 4xx says the payload or URL is wrong: trying again would not help");
    assert.match(log.lines[2], /try 1 of 2 failed \(HTTP 404\), giving up$/);
  } finally {
    await hung.close();
    await missing.close();
  }
});

Deno.test("a refused connection is tried again; settle() stops waiting for deliveries after its limit", async () => {
  const log = recordingLog();
  // A port that was just free: nothing listens there.
  const closed = startWebhookReceiver();
  const url = closed.url;
  await closed.close();
  const sender = new WebhookSender({ log, timeoutMs: 500, retryDelaysMs: [10] });
  assert.equal(await sender.send(url, { text: "r" }, "job e ended"), false);
  assert.equal(log.lines.length, 2);
  assert.match(log.lines[1], /try 2 of 2 failed \(.+\), giving up$/);
  const hung = startWebhookReceiver(["hang"]);
  try {
    const slow = new WebhookSender({ log, timeoutMs: 5_000, retryDelaysMs: [] });
    void slow.send(hung.url, { text: "s" }, "job f ended");
    await hung.waitForCalls(1);
    const started = Date.now();
    await slow.settle(100);
    assert.ok(Date.now() - started < 4_000, "settle gave up at its limit, not at the 5 s timeout");
    assert.match(log.lines.at(-1)!, /1 webhook calls still under way at stop/);
  } finally {
    await hung.close();
  }
});

Deno.test("a webhook URL is shown as its scheme and host only", () => {
  assert.equal(maskWebhookUrl("https://hooks.slack.com/services/T1/B2/xyz"), "https://hooks.slack.com/***");
  assert.equal(maskWebhookUrl("https://me:pw@chat.example:8065/hooks/abc?x=1"), "https://chat.example:8065/***");
  assert.equal(maskWebhookUrl("http://127.0.0.1:9000/"), "http://127.0.0.1:9000/");
  assert.equal(maskWebhookUrl("not a url with s3cret"), "***");
  assert.equal(maskWebhookUrl("null"), "null");
});
