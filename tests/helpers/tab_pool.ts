/** A tab pool for tests that drive it directly: Debian's Chromium unless told which, quiet, nothing blocked. */
import { findBrowser } from "../../src/browser/find_browser.ts";
import { TabPool, type TabPoolOptions } from "../../src/browser/pool.ts";
import { createLogger } from "../../src/log.ts";

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
      | "onPopup"
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
    onPopup: options.onPopup,
    onCrash: () => {},
  });
}
