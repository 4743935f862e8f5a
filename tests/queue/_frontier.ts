/**
 * Opening a RedisFrontier in a test: a logger that keeps its lines (to see what was said), and a frontier on a real
 * redis-server under a key of the test's own.
 */
import { RedisFrontier, type RedisFrontierOptions } from "../../src/queue/redis_frontier.ts";
import type { Page } from "../../src/spider/page.ts";
import { Spider } from "../../src/spider/spider.ts";
import type { Logger } from "../../src/spider/types.ts";

export class Books extends Spider {
  parseBook(page: Page) {
    return { url: page.url };
  }
}

/** A logger that keeps its lines, to see what was warned about. */
export function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: keep("debug"), info: keep("info"), warning: keep("warning"), error: keep("error") };
}

/** Opens a frontier on `url` under `key` (a lease of 6 s and an idle wait of 1 s unless said otherwise). */
export function openFrontier(
  url: string,
  key: string,
  options: Partial<Omit<RedisFrontierOptions, "url" | "key" | "spider" | "log">> = {},
): Promise<{ frontier: RedisFrontier; log: Logger & { lines: string[] } }> {
  const log = recordingLog();
  return RedisFrontier.open({
    ...options,
    url,
    key,
    spider: new Books(),
    log,
    leaseSeconds: options.leaseSeconds ?? 6,
    idleSeconds: options.idleSeconds === undefined ? 1 : options.idleSeconds,
  }).then((frontier) => ({ frontier, log }));
}

let keys = 0;

/** A crawl key no other test of the file uses. */
export function newKey(): string {
  return `test-${++keys}`;
}
