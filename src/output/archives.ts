/**
 * Archives of what a process fetched (C22): `warc: PATH` (WARC/1.1; `.warc.gz` compresses each record on its own,
 * as the format's tools expect) and `har: PATH` (HAR 1.2). Every response that came from the network is archived
 * as the exchange the crawler had: the request it sent last (after redirects) and the answer. Answers from the HTTP
 * cache or a middleware were not fetched, and are not archived.
 *
 * Bodies are archived as the crawler read them, decompressed: a response's Content-Encoding and Transfer-Encoding
 * headers are left out and its Content-Length is that of the body written, so each record is a well-formed HTTP
 * message on its own.
 *
 * Each file is written as it goes, in order; a HAR file gets its closing brackets when the archive closes, as a
 * JSON feed does. Existing files are replaced.
 */
import { Buffer } from "node:buffer";
import { randomUUID } from "node:crypto";
import { type FileHandle, open } from "node:fs/promises";
import { STATUS_CODES } from "node:http";
import { gzipSync } from "node:zlib";
import type { FetchedResponse } from "../spider/response.ts";

/**
 * Request headers whose values are credentials: archived as "[redacted]". An archive is a file that gets shared;
 * a login in it would outlive the crawl.
 */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization"]);

/** The headers a request was sent with, credentials redacted. */
function sentHeaders(response: FetchedResponse): Array<[string, string]> {
  return [...(response.sent?.headers ?? [])].map(([name, value]) =>
    SECRET_HEADERS.has(name.toLowerCase()) ? [name, "[redacted]"] : [name, value]
  );
}

/** Headers that described the bytes on the wire rather than the body archived. */
const WIRE_HEADERS = new Set(["content-encoding", "transfer-encoding", "content-length"]);

/** One fetch, as archived. */
export interface Exchange {
  response: FetchedResponse;
  /** The request's body, when it had one (after redirects: what the last request sent). */
  requestBody?: string;
}

interface Archive {
  add(exchange: Exchange): Promise<void>;
  close(): Promise<void>;
}

const encoder = new TextEncoder();

function bodyHeaders(response: FetchedResponse): Array<[string, string]> {
  const headers = [...response.headers].filter(([name]) => !WIRE_HEADERS.has(name.toLowerCase()));
  headers.push(["content-length", String(response.body.byteLength)]);
  return headers;
}

function requestTarget(url: URL): string {
  return `${url.pathname}${url.search}`;
}

/** The last request sent, as an HTTP/1.1 message. */
function httpRequest(exchange: Exchange): Uint8Array {
  const { response } = exchange;
  const url = new URL(response.url);
  const method = response.sent?.method ?? response.request.method;
  const headers = sentHeaders(response);
  if (!headers.some(([name]) => name.toLowerCase() === "host")) headers.unshift(["host", url.host]);
  const head = `${method} ${requestTarget(url)} HTTP/1.1\r\n` +
    headers.map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n";
  return Buffer.concat([encoder.encode(head), encoder.encode(exchange.requestBody ?? "")]);
}

/** The response, as an HTTP/1.1 message with its decompressed body. */
function httpResponse(response: FetchedResponse): Uint8Array {
  const reason = STATUS_CODES[response.status] ?? "";
  const head = `HTTP/1.1 ${response.status} ${reason}\r\n` +
    bodyHeaders(response).map(([name, value]) => `${name}: ${value}\r\n`).join("") + "\r\n";
  return Buffer.concat([encoder.encode(head), response.body]);
}

/** A WARC/1.1 file: a warcinfo record, then a request and a response record per fetch. */
class WarcArchive implements Archive {
  readonly #file: FileHandle;
  readonly #gzip: boolean;

  constructor(file: FileHandle, gzip: boolean) {
    this.#file = file;
    this.#gzip = gzip;
  }

  async start(software: string): Promise<void> {
    const info = encoder.encode(`software: ${software}\r\nformat: WARC File Format 1.1\r\n`);
    await this.#record({ "WARC-Type": "warcinfo", "Content-Type": "application/warc-fields" }, info);
  }

  async #record(fields: Record<string, string>, block: Uint8Array): Promise<void> {
    const header = {
      "WARC-Record-ID": fields["WARC-Record-ID"] ?? `<urn:uuid:${randomUUID()}>`,
      "WARC-Date": fields["WARC-Date"] ?? new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      ...fields,
      "Content-Length": String(block.byteLength),
    };
    const head = "WARC/1.1\r\n" + Object.entries(header).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "\r\n";
    const record = Buffer.concat([encoder.encode(head), block, encoder.encode("\r\n\r\n")]);
    await this.#file.write(this.#gzip ? gzipSync(record) : record);
  }

  async add(exchange: Exchange): Promise<void> {
    const { response } = exchange;
    const date = new Date(Date.now() - response.latency * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    const responseId = `<urn:uuid:${randomUUID()}>`;
    await this.#record({
      "WARC-Type": "response",
      "WARC-Record-ID": responseId,
      "WARC-Date": date,
      "WARC-Target-URI": response.url,
      "Content-Type": "application/http;msgtype=response",
    }, httpResponse(response));
    await this.#record({
      "WARC-Type": "request",
      "WARC-Date": date,
      "WARC-Target-URI": response.url,
      "WARC-Concurrent-To": responseId,
      "Content-Type": "application/http;msgtype=request",
    }, httpRequest(exchange));
  }

  async close(): Promise<void> {
    await this.#file.close();
  }
}

/** A HAR 1.2 file, its entries written as they come and its end at close. */
class HarArchive implements Archive {
  readonly #file: FileHandle;
  #entries = 0;

  constructor(file: FileHandle) {
    this.#file = file;
  }

  async start(software: string, version: string): Promise<void> {
    const creator = JSON.stringify({ name: software, version });
    await this.#file.write(`{"log":{"version":"1.2","creator":${creator},"pages":[],"entries":[\n`);
  }

  async add(exchange: Exchange): Promise<void> {
    const { response } = exchange;
    const url = new URL(response.url);
    const pairs = (headers: Iterable<[string, string]>) => [...headers].map(([name, value]) => ({ name, value }));
    const mimeType = response.headers.get("content-type") ?? "";
    const textual = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json)|[^;]*\+(json|xml))/i.test(
      mimeType,
    );
    const content: Record<string, unknown> = { size: response.body.byteLength, mimeType };
    if (textual) content.text = new TextDecoder().decode(response.body);
    else {
      content.text = Buffer.from(response.body).toString("base64");
      content.encoding = "base64";
    }
    const millis = Math.round(response.latency * 1000);
    const entry = {
      startedDateTime: new Date(Date.now() - millis).toISOString(),
      time: millis,
      request: {
        method: response.sent?.method ?? response.request.method,
        url: response.url,
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: pairs(sentHeaders(response)),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(exchange.requestBody === undefined
          ? {}
          : { postData: { mimeType: response.sent?.headers.get("content-type") ?? "", text: exchange.requestBody } }),
        headersSize: -1,
        bodySize: exchange.requestBody === undefined ? 0 : encoder.encode(exchange.requestBody).byteLength,
      },
      response: {
        status: response.status,
        statusText: STATUS_CODES[response.status] ?? "",
        httpVersion: "HTTP/1.1",
        cookies: [],
        headers: pairs(bodyHeaders(response)),
        content,
        redirectURL: response.headers.get("location") ?? "",
        headersSize: -1,
        bodySize: response.body.byteLength,
      },
      cache: {},
      timings: { send: 0, wait: millis, receive: 0 },
    };
    await this.#file.write((this.#entries++ === 0 ? "" : ",\n") + JSON.stringify(entry));
  }

  async close(): Promise<void> {
    await this.#file.write("\n]}}\n");
    await this.#file.close();
  }
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
        const warc = new WarcArchive(await open(paths.warc, "w"), /\.gz$/i.test(paths.warc));
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
    const write = this.#chain.then(async () => {
      for (const archive of this.#archives) await archive.add(exchange);
    });
    this.#chain = write.catch(() => {});
    return write;
  }

  async close(): Promise<void> {
    await this.#chain;
    for (const archive of this.#archives) await archive.close();
  }
}
