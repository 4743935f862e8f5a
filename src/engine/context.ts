/** What the parts of one crawl share. Owned by one Crawl object: two crawls never share a context. */
import type { HttpCache } from "../fetch/cache.ts";
import type { Archives } from "../output/archives.ts";
import type { Deltafetch } from "./deltafetch.ts";
import type { WorkerPool } from "./worker_pool.ts";
import type { Downloader } from "../fetch/downloader.ts";
import type { Fetchers } from "./fetchers.ts";
import type { RobotsTxt } from "../fetch/robots.ts";
import type { Frontier, Lease } from "../queue/frontier.ts";
import type { SettingValues } from "../settings/table.ts";
import type { Request } from "../spider/request.ts";
import type { Spider } from "../spider/spider.ts";
import type { Logger } from "../spider/types.ts";
import type { Admission } from "./admission.ts";
import type { ItemSink, PipelineChain } from "./items.ts";
import type { Slots } from "./slots.ts";
import type { SessionPool } from "./session_pool.ts";
import type { Stats } from "./stats.ts";
import type { RenderAuto } from "./render_auto.ts";

export interface CrawlContext {
  readonly spider: Spider;
  readonly settings: SettingValues;
  readonly log: Logger;
  readonly stats: Stats;
  readonly frontier: Frontier;
  /**
   * Hands a page to the frontier to be finished (released, with the requests it yielded) without waiting for it:
   * the crawl tracks the call, so the page's slot serves the next request while a shared queue's round trip is on
   * its way. A failure stops the crawl.
   */
  readonly finish: (lease: Lease, yielded: readonly Request[]) => void;
  /** The HTTP side: robots.txt, proxies and the cookie jar the browser shares; pages are fetched by `fetchers`. */
  readonly downloader: Downloader;
  /** How each request is fetched: over HTTP, or rendered in the browser. */
  readonly fetchers: Fetchers;
  /** Which `render: "auto"` requests render, decided per kind of page. */
  readonly renderAuto: RenderAuto;
  /** The HTTP cache, when the `cache` setting names a directory; opened when the crawl starts. */
  cache: HttpCache | undefined;
  /** The deltafetch record, when the `deltafetch` setting names a file; opened when the crawl starts. */
  deltafetch: Deltafetch | undefined;
  /** The WARC and HAR files, when `warc` or `har` name one; opened when the crawl starts. */
  archives: Archives | undefined;
  /** The callback workers, when `workers` is above 0; started when the crawl starts. */
  workers: WorkerPool | undefined;
  readonly robots: RobotsTxt | undefined;
  readonly slots: Slots;
  /** The crawl's sessions, when the `sessions` setting is above 0. */
  readonly sessions: SessionPool | undefined;
  readonly admission: Admission;
  readonly pipelines: PipelineChain;
  readonly sink: ItemSink;
  /** Aborted when the crawl stops: in-flight downloads end at once. */
  readonly signal: AbortSignal;
}
