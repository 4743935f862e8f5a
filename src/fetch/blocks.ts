/**
 * Blocked responses (C10): what a site answers when it has decided the crawler is a bot rather than serving the
 * page. Two shapes are recognised:
 *
 * - a 403, 429 or 503 that carries a challenge: a bot-protection header (`cf-mitigated: challenge`), or a page
 *   whose text has the marks of a CAPTCHA or interstitial (the markers below);
 * - a 200 with an empty body (nothing but white space) for a GET: a page was due and none came.
 *
 * A plain 403, 429 or 503 is not a block: it is an answer, retried or handed to the errback by the usual rules.
 */
import type { FetchedResponse } from "../spider/response.ts";

/** How much of a body is looked at for challenge markers: interstitials put them near the top. */
const SCANNED_BYTES = 64 * 1024;

/**
 * Text found in challenge and CAPTCHA pages of the common bot-protection services and of hand-made ones. Lower case;
 * matched against the lower-cased start of the body.
 */
const CHALLENGE_MARKERS = [
  "captcha",
  "cf-chl-",
  "challenge-platform",
  "just a moment...",
  "attention required",
  "verify you are human",
  "are you a robot",
  "are you a human",
  "unusual traffic",
  "bot detection",
  "access to this page has been denied",
  "perimeterx",
  "px-captcha",
  "datadome",
  "incapsula",
  "distil_r_",
];

const CHALLENGE_STATUSES = new Set([403, 429, 503]);

/** Why a response looks blocked ("challenge: captcha", "empty body"), or undefined when it looks like a page. */
export function blockReason(response: FetchedResponse, method: string): string | undefined {
  if (CHALLENGE_STATUSES.has(response.status)) {
    if (/challenge/i.test(response.headers.get("cf-mitigated") ?? "")) return "challenge: cf-mitigated header";
    const head = new TextDecoder().decode(response.body.subarray(0, SCANNED_BYTES)).toLowerCase();
    const marker = CHALLENGE_MARKERS.find((text) => head.includes(text));
    return marker === undefined ? undefined : `challenge: ${marker}`;
  }
  if (response.status === 200 && method === "GET" && isBlank(response.body)) return "empty body";
  return undefined;
}

function isBlank(body: Uint8Array): boolean {
  for (const byte of body) {
    // space, tab, LF, CR, and a UTF-8 byte-order mark's bytes
    if (
      byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0xef && byte !== 0xbb &&
      byte !== 0xbf
    ) {
      return false;
    }
  }
  return true;
}
