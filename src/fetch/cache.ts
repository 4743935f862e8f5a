/**
 * The HTTP cache (C20): `cache: DIR` keeps every response fetched from the network, keyed by the request's
 * fingerprint, and answers the same request from it in later runs. Meant for developing a spider: the first run
 * fetches, the next ones re-run the callbacks against the same pages without touching the site. Entries never
 * expire; delete the directory (or an entry) to fetch again. Server errors (5xx) and 429s are not kept: they are
 * passing states a later run should ask about again.
 *
 * Layout: DIR/AB/FINGERPRINT.json (the answer's URL, status, headers, redirects, when it was stored) and
 * DIR/AB/FINGERPRINT.body (the decompressed body), AB being the fingerprint's first two hex digits so that no
 * directory holds more than a few thousand files. Each file is written under a temporary name and renamed into
 * place, so a crawl killed mid-write leaves no half entry behind.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { checkWritableDirectory } from "../settings/writable_path.ts";
import { join } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { fingerprint } from "../spider/fingerprint.ts";
import type { Request } from "../spider/request.ts";
import type { FetchedResponse } from "../spider/response.ts";
import { HeaderList } from "../runtime/header_list.ts";

/** What the .json file of an entry holds. */
interface Entry {
  v: 1;
  url: string;
  status: number;
  headers: Array<[string, string]>;
  redirects: string[];
  storedAt: string;
}

export class HttpCache {
  readonly #dir: string;
  #tmpCounter = 0;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * Creates the directory (not its parents: one rule for every path a crawl writes, see writable_path.ts); a path
   * that cannot be one fails here, before the crawl starts.
   */
  async open(): Promise<void> {
    await checkWritableDirectory(this.#dir, "cache");
    await mkdir(this.#dir, { recursive: true });
  }

  #paths(request: Request): { json: string; body: string; folder: string } {
    const print = fingerprint(request);
    const folder = join(this.#dir, print.slice(0, 2));
    return { folder, json: join(folder, `${print}.json`), body: join(folder, `${print}.body`) };
  }

  /** The stored answer to `request`, or undefined when there is none (or it cannot be read). */
  async get(request: Request): Promise<FetchedResponse | undefined> {
    const paths = this.#paths(request);
    let entry: Entry;
    let body: Uint8Array;
    try {
      entry = JSON.parse(await readFile(paths.json, "utf8"));
      body = new Uint8Array(await readFile(paths.body));
    } catch {
      return undefined;
    }
    if (entry?.v !== 1 || typeof entry.url !== "string" || typeof entry.status !== "number") return undefined;
    return {
      url: entry.url,
      status: entry.status,
      headers: new HeaderList(entry.headers),
      body,
      request,
      redirects: Array.isArray(entry.redirects) ? entry.redirects : [],
      latency: 0,
      source: "cache",
    };
  }

  /** Whether a response is kept: everything but server errors and 429s. */
  static keeps(response: FetchedResponse): boolean {
    return response.status < 500 && response.status !== 429;
  }

  /** Stores a response fetched from the network for `request`: the body first, so an entry is never without one. */
  async put(request: Request, response: FetchedResponse): Promise<void> {
    const paths = this.#paths(request);
    const entry: Entry = {
      v: 1,
      url: response.url,
      status: response.status,
      headers: [...response.headers],
      redirects: response.redirects,
      storedAt: new Date().toISOString(),
    };
    await mkdir(paths.folder, { recursive: true });
    await this.#writeAtomically(paths.body, response.body);
    await this.#writeAtomically(paths.json, JSON.stringify(entry));
  }

  async #writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
    const temporary = `${path}.${runtime.pid}.${this.#tmpCounter++}.tmp`;
    await writeFile(temporary, data);
    await rename(temporary, path);
  }
}
