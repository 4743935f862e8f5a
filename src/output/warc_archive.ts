/**
 * A WARC/1.1 file (ISO 28500), as web archive tools read it: a `warcinfo` record first, then for every request sent
 * (each redirect hop too) a `response` record and a `request` record tied to it by WARC-Concurrent-To. Each record
 * carries WARC-Block-Digest (the whole HTTP message) and WARC-Payload-Digest (the body), SHA-1 in base32 as the
 * format's tools write them, so a reader can tell a damaged record from a whole one. `.warc.gz` compresses each
 * record on its own (what readers seek by), off the main thread: zlib's asynchronous gzip runs in the thread pool,
 * so a crawl archiving big pages does not stall its callbacks.
 */
import { Buffer } from "node:buffer";
import { createHash, randomUUID } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { basename } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { type ArchivedExchange, requestMessage, responseMessage } from "./http_messages.ts";

const gzipAsync = promisify(gzip);
const encoder = new TextEncoder();
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 (a SHA-1's 20 bytes are 32 characters, no padding needed). */
function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out.padEnd(Math.ceil(out.length / 8) * 8, "=");
}

/** `sha1:BASE32` of some bytes, as WARC digests are written. */
export function warcDigest(bytes: Uint8Array): string {
  return `sha1:${base32(createHash("sha1").update(bytes).digest())}`;
}

function warcDate(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d+Z$/, "Z");
}

export class WarcArchive {
  readonly #file: FileHandle;
  readonly #gzip: boolean;
  readonly #name: string;

  constructor(file: FileHandle, path: string) {
    this.#file = file;
    this.#gzip = /\.gz$/i.test(path);
    this.#name = basename(path);
  }

  async start(software: string): Promise<void> {
    const fields = [
      ["software", software],
      ["format", "WARC File Format 1.1"],
      ["conformsTo", "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"],
    ];
    const info = encoder.encode(fields.map(([name, value]) => `${name}: ${value}\r\n`).join(""));
    await this.#record({
      "WARC-Type": "warcinfo",
      "WARC-Filename": this.#name,
      "Content-Type": "application/warc-fields",
      "WARC-Block-Digest": warcDigest(info),
    }, info);
  }

  async #record(fields: Record<string, string>, block: Uint8Array): Promise<void> {
    const header = {
      "WARC-Record-ID": fields["WARC-Record-ID"] ?? `<urn:uuid:${randomUUID()}>`,
      "WARC-Date": fields["WARC-Date"] ?? warcDate(Date.now()),
      ...fields,
      "Content-Length": String(block.byteLength),
    };
    const head = "WARC/1.1\r\n" + Object.entries(header).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "\r\n";
    const record = Buffer.concat([encoder.encode(head), block, encoder.encode("\r\n\r\n")]);
    await this.#file.write(this.#gzip ? await gzipAsync(record) : record);
  }

  /** The exchanges of one response, in the order they happened: for each, its response then its request. */
  async add(exchanges: readonly ArchivedExchange[]): Promise<void> {
    for (const exchange of exchanges) {
      const date = warcDate(exchange.at);
      const responseId = `<urn:uuid:${randomUUID()}>`;
      const { message, payloadOffset } = responseMessage(exchange);
      await this.#record({
        "WARC-Type": "response",
        "WARC-Record-ID": responseId,
        "WARC-Date": date,
        "WARC-Target-URI": exchange.url,
        "Content-Type": "application/http;msgtype=response",
        "WARC-Block-Digest": warcDigest(message),
        "WARC-Payload-Digest": warcDigest(message.subarray(payloadOffset)),
      }, message);
      const request = requestMessage(exchange);
      await this.#record({
        "WARC-Type": "request",
        "WARC-Date": date,
        "WARC-Target-URI": exchange.url,
        "WARC-Concurrent-To": responseId,
        "Content-Type": "application/http;msgtype=request",
        "WARC-Block-Digest": warcDigest(request),
        "WARC-Payload-Digest": warcDigest(encoder.encode(exchange.requestBody ?? "")),
      }, request);
    }
  }

  async close(): Promise<void> {
    await this.#file.close();
  }
}
