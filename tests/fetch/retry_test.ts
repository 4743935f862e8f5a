import assert from "node:assert/strict";
import { FetchError } from "../../src/errors.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { parseRetryAfter, retryDelay, retryNotBefore, retryReason, retryRequest } from "../../src/fetch/retry.ts";
import { Request } from "../../src/spider/request.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { downloaderWith, settingsWith } from "./support.ts";

const settings = settingsWith({ retries: 2, retryBackoff: 1 });
const request = new Request("https://site.test/page");
const withStatus = (status: number, headers: Record<string, string> = {}) => makeResponse(request, { status, headers });

Deno.test("network errors, timeouts and the retry statuses are retried, with the reason named", () => {
  assert.equal(retryReason(settings, request, new FetchError("network", "refused")), "network");
  assert.equal(retryReason(settings, request, new FetchError("timeout", "slow")), "timeout");
  assert.equal(retryReason(settings, request, withStatus(503)), "status_503");
  assert.equal(retryReason(settings, request, withStatus(429)), "status_429");
});

Deno.test("successes, other statuses and failures that would only repeat are not retried", () => {
  assert.equal(retryReason(settings, request, withStatus(200)), undefined);
  assert.equal(retryReason(settings, request, withStatus(404)), undefined);
  for (const reason of ["too_large", "redirects", "aborted", "closed"]) {
    assert.equal(retryReason(settings, request, new FetchError(reason, reason)), undefined, reason);
  }
  assert.equal(retryReason(settingsWith({ retryHttpCodes: [500] }), request, withStatus(503)), undefined);
});

Deno.test("a request is retried until its retries are used up, by the setting or meta max_retry_times", () => {
  const retried = (times: number, meta: Record<string, unknown> = {}) =>
    request.replace({ meta: { ...meta, retry_times: times } });
  assert.equal(retryReason(settings, retried(1), withStatus(503)), "status_503");
  assert.equal(retryReason(settings, retried(2), withStatus(503)), undefined);
  assert.equal(retryReason(settings, retried(2, { max_retry_times: 5 }), withStatus(503)), "status_503");
  assert.equal(retryReason(settings, retried(0, { max_retry_times: 0 }), withStatus(503)), undefined);
  assert.equal(retryReason(settingsWith({ retries: 0 }), request, new FetchError("network", "x")), undefined);
});

Deno.test("meta dont_retry stops retries but handle_httpstatus_list does not", () => {
  const dont = request.replace({ meta: { dont_retry: true } });
  assert.equal(retryReason(settings, dont, withStatus(503)), undefined);
  assert.equal(retryReason(settings, dont, new FetchError("network", "x")), undefined);
  const handled = request.replace({ meta: { handle_httpstatus_list: [503] } });
  assert.equal(retryReason(settings, handled, withStatus(503)), "status_503");
});

Deno.test("the backoff doubles each attempt within 20% and stops at 60 seconds", () => {
  const low = () => 0;
  const high = () => 0.999999;
  const backoff = settingsWith({ retryBackoff: 2 });
  assert.equal(retryDelay(backoff, 1, undefined, low), 1.6);
  assert.ok(Math.abs(retryDelay(backoff, 1, undefined, high) - 2.4) < 1e-5);
  assert.equal(retryDelay(backoff, 3, undefined, low), 6.4);
  assert.equal(retryDelay(backoff, 10, undefined, high), 60);
  for (let i = 0; i < 50; i++) {
    const delay = retryDelay(backoff, 2);
    assert.ok(delay >= 3.2 && delay <= 4.8, `delay ${delay}`);
  }
  assert.throws(() => retryDelay(backoff, 0), RangeError);
});

Deno.test("Retry-After raises the delay, in seconds or as a date, up to 300 seconds", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  const low = () => 0;
  assert.equal(retryDelay(settings, 1, withStatus(503, { "retry-after": "30" }), low, now), 30);
  assert.equal(retryDelay(settings, 1, withStatus(503, { "retry-after": "0" }), low, now), 0.8);
  assert.equal(retryDelay(settings, 1, withStatus(429, { "retry-after": "86400" }), low, now), 300);
  const date = "Wed, 01 Jan 2025 00:02:00 GMT";
  assert.equal(retryDelay(settings, 1, withStatus(503, { "retry-after": date }), low, now), 120);
  assert.equal(retryDelay(settings, 1, withStatus(503, { "retry-after": "soon" }), low, now), 0.8);
});

Deno.test("Retry-After is parsed as seconds or an HTTP date, a past date being zero", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("120", now), 120);
  assert.equal(parseRetryAfter(" 7 ", now), 7);
  assert.equal(parseRetryAfter("Wed, 01 Jan 2025 00:00:10 GMT", now), 10);
  assert.equal(parseRetryAfter("Tue, 31 Dec 2024 23:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("Wednesday, 01-Jan-25 00:01:00 GMT", now), 60);
  assert.equal(parseRetryAfter(null, now), undefined);
  assert.equal(parseRetryAfter("", now), undefined);
  assert.equal(parseRetryAfter("-5", now), undefined);
  assert.equal(parseRetryAfter("1.5", now), undefined);
  assert.equal(parseRetryAfter("later", now), undefined);
});

Deno.test("a flaky page is retried until it answers, as the engine would drive it", async () => {
  const site = await startFixtureSite();
  const downloader = downloaderWith();
  try {
    let current = new Request(site.url + "flaky/page?fail=2&code=503&retry_after=1");
    const reasons: Array<string | undefined> = [];
    const delays: number[] = [];
    for (;;) {
      const response = await downloader.fetch(current);
      const reason = retryReason(settings, current, response);
      reasons.push(reason);
      if (!reason) break;
      const times = ((current.meta.retry_times as number | undefined) ?? 0) + 1;
      delays.push(retryDelay(settings, times, response));
      current = current.replace({ meta: { ...current.meta, retry_times: times } });
    }
    assert.deepEqual(reasons, ["status_503", "status_503", undefined]);
    assert.equal(site.hits("/flaky/page"), 3);
    assert.ok(delays.every((delay) => delay >= 1), `Retry-After respected: ${delays}`);
  } finally {
    downloader.close();
    await site.close();
  }
});

Deno.test("a retry's request counts one more in meta retry_times, keeps its meta and says when it may start", () => {
  const first = new Request({ url: "http://127.0.0.1/a", meta: { shelf: "new" } });
  const retry = retryRequest(first, 2, {}, 1_000_000);
  assert.deepEqual(retry.meta, { shelf: "new", retry_times: 1, retry_at: 1_002_000 });
  assert.equal(retry.dontFilter, true);
  const again = retryRequest(retry, 0, { proxy: "http://127.0.0.1:9" }, 2_000_000);
  assert.deepEqual(again.meta, { shelf: "new", proxy: "http://127.0.0.1:9", retry_times: 2 });
});

Deno.test("a retry waits until meta retry_at, but never more than 300 s", () => {
  const at = (value: unknown) =>
    retryNotBefore(new Request({ url: "http://127.0.0.1/", meta: { retry_at: value } }), 0);
  assert.equal(at(5_000), 5_000);
  assert.equal(at(1e15), 300_000);
  assert.equal(at("soon"), 0);
  assert.equal(retryNotBefore(new Request({ url: "http://127.0.0.1/" })), 0);
});
