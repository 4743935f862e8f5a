/** A tab pool for tests that drive it directly: Debian's Chromium unless told which, quiet, nothing blocked. */
import { findBrowser } from "../../src/browser/find_browser.ts";
import { TabPool, type TabPoolOptions } from "../../src/browser/pool.ts";
import type { RenderDeps } from "../../src/browser/render.ts";
import { createLogger } from "../../src/log.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { Spider } from "../../src/spider/spider.ts";

/**
 * What a render needs from a crawl, for tests that render in a pool's tab with no crawl around: no cookie jar, nothing
 * blocked, every navigation allowed, and the main document fetched with `fetch` (where a crawl uses its HTTP fetcher).
 */
export const TEST_RENDER_DEPS: RenderDeps = {
  spider: new (class extends Spider {
    override parse() {}
  })(),
  jar: undefined,
  uploadDir: null,
  maxRedirects: 5,
  blockTypes: new Set(),
  proxy: undefined,
  fetchDocument: async (request) => {
    const answer = await fetch(request.url, { redirect: "manual" });
    return makeResponse(request, {
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body: new Uint8Array(await answer.arrayBuffer()),
    });
  },
  checkNavigation: () => Promise.resolve(undefined),
  count: () => {},
};

export function openTestPool(
  tabs: number,
  options: Partial<
    Pick<
      TabPoolOptions,
      | "executable"
      | "tabUses"
      | "pressureEvery"
      | "protocolTimeoutMs"
      | "memoryBudget"
      | "memoryCheckMs"
      | "cookies"
      | "endpoint"
      | "reconnectMs"
      | "onDisconnect"
      | "blockTypes"
    >
  > = {},
): TabPool {
  return new TabPool({
    executable: options.executable ?? findBrowser(null),
    tabs,
    tabUses: options.tabUses,
    pressureEvery: options.pressureEvery,
    log: createLogger("error", () => {}),
    blockTypes: options.blockTypes ?? [],
    userAgent: null,
    extraHeaders: {},
    protocolTimeoutMs: options.protocolTimeoutMs ?? 30_000,
    memoryBudget: options.memoryBudget,
    memoryCheckMs: options.memoryCheckMs,
    cookies: options.cookies,
    endpoint: options.endpoint,
    reconnectMs: options.reconnectMs,
    onDisconnect: options.onDisconnect,
    onCrash: () => {},
  });
}
