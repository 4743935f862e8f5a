/**
 * Archives of what a process fetched (C22): `warc: PATH` (WARC/1.1, see warc_archive.ts) and `har: PATH` (HAR 1.2,
 * see har_archive.ts). Every response that came from the network is archived as the exchanges the crawler had:
 * each redirect hop, then the last request and its answer (http_messages.ts). Answers from the HTTP cache or a
 * middleware were not fetched, and are not archived. Existing files are replaced.
 */
import { open } from "node:fs/promises";
import type { FetchedResponse } from "../spider/response.ts";
import { HarArchive } from "./har_archive.ts";
import { type ArchivedExchange, exchangesOf } from "./http_messages.ts";
import { WarcArchive } from "./warc_archive.ts";

/** One fetch, as archived. */
export interface Exchange {
  response: FetchedResponse;
  /** The request's body, when it had one (after redirects: what the last request sent). */
  requestBody?: string;
}

interface Archive {
  add(exchanges: readonly ArchivedExchange[]): Promise<void>;
  close(): Promise<void>;
}

/** The archives a crawl's settings ask for, written together in the order fetches end. */
export class Archives {
  readonly #archives: Archive[];
  #chain: Promise<void> = Promise.resolve();

  private constructor(archives: Archive[]) {
    this.#archives = archives;
  }

  /** Opens the WARC and HAR files (either may be null); replaces what was there. */
  static async open(paths: { warc: string | null; har: string | null }, version: string): Promise<Archives> {
    const archives: Archive[] = [];
    try {
      if (paths.warc !== null) {
        const warc = new WarcArchive(await open(paths.warc, "w"), paths.warc);
        archives.push(warc);
        await warc.start(`Netweir/${version}`);
      }
      if (paths.har !== null) {
        const har = new HarArchive(await open(paths.har, "w"));
        archives.push(har);
        await har.start("Netweir", version);
      }
    } catch (error) {
      for (const archive of archives) await archive.close().catch(() => {});
      throw error;
    }
    return new Archives(archives);
  }

  /** Archives one fetch; resolves once it is written to every file. Writes happen one at a time, in call order. */
  add(exchange: Exchange): Promise<void> {
    const exchanges = exchangesOf(exchange.response, exchange.requestBody);
    const write = this.#chain.then(async () => {
      for (const archive of this.#archives) await archive.add(exchanges);
    });
    this.#chain = write.catch(() => {});
    return write;
  }

  async close(): Promise<void> {
    await this.#chain;
    for (const archive of this.#archives) await archive.close();
  }
}
