import assert from "node:assert/strict";
import { blockReason } from "../../src/fetch/blocks.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { Request } from "../../src/spider/request.ts";

function response(status: number, body: string, headers: Record<string, string> = {}) {
  return makeResponse(new Request({ url: "https://shop.example/p" }), { status, body, headers });
}

Deno.test("a 403, 429 or 503 carrying a challenge looks blocked, and says which mark it found", () => {
  assert.equal(blockReason(response(403, "<title>Just a Moment...</title>"), "GET"), "challenge: just a moment...");
  assert.equal(blockReason(response(429, "<div class='g-recaptcha'>"), "GET"), "challenge: captcha");
  assert.equal(
    blockReason(response(503, "", { "cf-mitigated": "challenge" }), "GET"),
    "challenge: cf-mitigated header",
  );
});

Deno.test("a plain error status is an answer, not a block", () => {
  assert.equal(blockReason(response(403, "Forbidden"), "GET"), undefined);
  assert.equal(blockReason(response(503, "Service Unavailable: back soon"), "GET"), undefined);
  assert.equal(blockReason(response(404, "captcha"), "GET"), undefined, "a 404 is never a block");
});

Deno.test("an empty 200 for a GET looks blocked; a page with content, or a HEAD, does not", () => {
  assert.equal(blockReason(response(200, ""), "GET"), "empty body");
  assert.equal(blockReason(response(200, " \n\t\r\n"), "GET"), "empty body");
  assert.equal(blockReason(response(200, ""), "HEAD"), undefined);
  assert.equal(blockReason(response(200, "<html></html>"), "GET"), undefined);
  assert.equal(blockReason(response(200, "<p>how to solve a captcha</p>"), "GET"), undefined, "200s are pages");
});
