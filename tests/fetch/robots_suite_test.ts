/**
 * Netweir's robots.txt decisions held to Google's robots.txt test suite (robots_test.cc of google/robotstxt, ported
 * to tests/fixtures/google-robotstxt/robots_cases.json): every IsUserAgentAllowed case, run through the crawl's
 * RobotsTxt with the case's robots.txt as the origin's answer and its user agent as the crawl's, and the suite's
 * sitemap, escaping and path cases. Where Netweir answers otherwise on purpose, DIFFERENCES says why; every other case
 * must get Google's answer. The counts are printed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { RobotsTxt } from "../../src/fetch/robots.ts";
import { canonicalPath } from "../../src/fetch/robots_rules.ts";

interface AllowedCase {
  test: string;
  derived?: string;
  robotstxt?: string;
  /** The robots.txt as hex bytes, where it is not UTF-8 (partial byte order marks). */
  robotstxtBytes?: string;
  agent: string;
  url: string;
  allowed: boolean;
}

const SUITE = JSON.parse(
  readFileSync(new URL("../fixtures/google-robotstxt/robots_cases.json", import.meta.url), "utf8"),
) as {
  allowed: AllowedCase[];
  sitemaps: { robotstxt: string; sitemaps: string[] }[];
  escapes: { pattern: string; escaped: string }[];
  paths: { url: string; path: string }[];
};

/**
 * Cases Netweir answers otherwise, by robots.txt rule and URL, with the reason. Google matches the URL as the caller
 * gives it ("it's up to the caller to percent encode a URL"); every URL Netweir checks has been through the WHATWG
 * URL parser, which writes ツ as %E3%83%84, so a raw ツ is never seen. And RFC 9309 2.2.2 has a percent-encoded
 * unreserved character decoded before comparison, which Google's matcher does not do.
 */
const DIFFERENCES: Record<string, string> = {
  "Allow: /foo/bar/ツ | http://foo.bar/foo/bar/ツ": "the URL parser encodes ツ, as the rule is encoded",
  "Allow: /foo/bar/%E3%83%84 | http://foo.bar/foo/bar/ツ": "the URL parser encodes ツ, as the rule is written",
  "Allow: /foo/bar/%62%61%7A | http://foo.bar/foo/bar/baz": "RFC 9309: %62%61%7A is baz (unreserved, decoded)",
};

function textOf(test: AllowedCase): string {
  if (test.robotstxt !== undefined) return test.robotstxt;
  const bytes = Uint8Array.from(test.robotstxtBytes!.match(/../g)!, (byte) => parseInt(byte, 16));
  // As the crawl reads a robots.txt: UTF-8, bytes that are not become U+FFFD.
  return new TextDecoder().decode(bytes);
}

/** The Allow line the difference is known by: the last rule of the case's robots.txt. */
function differenceKey(test: AllowedCase): string {
  const lastRule = textOf(test).trim().split("\n").at(-1)!;
  return `${lastRule} | ${test.url}`;
}

Deno.test("every allow/disallow case of Google's robots.txt suite gets Google's answer, but for the differences named", async () => {
  const wrong: string[] = [];
  const differed: string[] = [];
  const counts = { ID: 0, GoogleOnly: 0 };
  for (const test of SUITE.allowed) {
    const text = textOf(test);
    const robots = new RobotsTxt(() => Promise.resolve({ status: 200, text }), test.agent);
    // Google's empty URL stands for the path "/" (its GetPathParamsQuery).
    const url = test.url === "" ? "http://foo.bar/" : test.url;
    const { allowed } = await robots.check(url);
    const shortUrl = test.url.length > 80 ? `${test.url.slice(0, 80)}...` : test.url;
    const label = `${test.test}${test.derived ? ` (${test.derived})` : ""}: ${test.agent || '""'} ${shortUrl}`;
    if (allowed === test.allowed) {
      counts[test.test.startsWith("GoogleOnly_") ? "GoogleOnly" : "ID"]++;
      continue;
    }
    if (DIFFERENCES[differenceKey(test)] !== undefined) differed.push(differenceKey(test));
    else wrong.push(`${label}: ${allowed}, Google says ${test.allowed}`);
  }
  console.log(
    `Google's robots.txt suite: ${counts.ID} RFC (ID_) and ${counts.GoogleOnly} Google-only cases as Google answers, ` +
      `${differed.length} different on purpose, ${wrong.length} wrong, of ${SUITE.allowed.length}`,
  );
  assert.deepEqual(wrong, []);
  assert.deepEqual(differed.sort(), Object.keys(DIFFERENCES).sort());
});

Deno.test("Google's sitemap, escaping and path cases", async () => {
  for (const { robotstxt, sitemaps } of SUITE.sitemaps) {
    const robots = new RobotsTxt(() => Promise.resolve({ status: 200, text: robotstxt }), "foo");
    await robots.check("http://foo.bar/");
    assert.deepEqual(robots.sitemaps("http://foo.bar"), sitemaps);
  }
  for (const { pattern, escaped } of SUITE.escapes) assert.equal(canonicalPath(pattern), escaped, pattern);
  // Google's GetPathParamsQuery for absolute URLs: what a crawl matches, the URL parser's path and query.
  for (const { url, path } of SUITE.paths) {
    const parsed = new URL(url);
    assert.equal(canonicalPath(parsed.pathname + parsed.search), path, url);
  }
  assert.equal(SUITE.sitemaps.length + SUITE.escapes.length + SUITE.paths.length, 12);
});
