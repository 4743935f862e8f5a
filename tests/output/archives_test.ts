/** WARC and HAR files of a real crawl, read back with warcio (the web archiving tools' WARC library). */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
// A test-only dependency, pinned here rather than in deno.json, whose imports become the npm package's dependencies.
// deno-lint-ignore no-import-prefix
import { WARCParser, type WARCRecord } from "npm:warcio@2.4.11";
import { type Page, Request, Spider } from "../../mod.ts";
import { crawlItems } from "../engine/_crawl.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { withTempDir } from "./temp_dir.ts";

/** RFC 4648 base32 of a SHA-1, as WARC digests are written (`sha1:` and 32 characters). */
function sha1Base32(bytes: Uint8Array): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const digest = createHash("sha1").update(bytes).digest();
  let bits = "";
  for (const byte of digest) bits += byte.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return `sha1:${out}`;
}

interface Read {
  type: string;
  id: string;
  uri: string | undefined;
  concurrentTo: string | undefined;
  status: number | undefined;
  blockDigest: string | undefined;
  payloadDigest: string | undefined;
  /** What warcio read: the whole block, and (for HTTP records) the body after the HTTP headers. */
  block: Uint8Array;
  payload: Uint8Array;
  /** The record's WARC header fields. */
  field(name: string): string | undefined;
}

async function records(path: string, parseHttp: boolean): Promise<WARCRecord[]> {
  const bytes = await readFile(path);
  const out: WARCRecord[] = [];
  for await (const record of WARCParser.iterRecords([new Uint8Array(bytes)], { parseHttp })) {
    await record.readFully(false);
    out.push(record);
  }
  return out;
}

async function readWarc(path: string): Promise<Read[]> {
  // Twice: as blocks (the block digest covers the whole HTTP message) and parsed (the payload digest its body).
  const blocks = await records(path, false);
  const parsed = await records(path, true);
  assert.equal(blocks.length, parsed.length);
  return parsed.map((record, index) => {
    const header = (name: string) => record.warcHeaders.headers.get(name) ?? undefined;
    return {
      type: record.warcType!,
      id: header("WARC-Record-ID")!,
      uri: header("WARC-Target-URI"),
      concurrentTo: header("WARC-Concurrent-To"),
      status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : undefined,
      blockDigest: header("WARC-Block-Digest"),
      payloadDigest: header("WARC-Payload-Digest"),
      block: blocks[index].payload ?? new Uint8Array(),
      payload: record.payload ?? new Uint8Array(),
      field: header,
    };
  });
}

class Archived extends Spider {
  constructor(readonly site: string) {
    super();
  }
  override async *start() {
    yield new Request({ url: `${this.site}redirect/2` });
    yield new Request({ url: `${this.site}cookies/set?session=abc`, callback: "afterCookie" });
    yield new Request({ url: `${this.site}gzip` });
  }
  override parse(_page: Page) {}
  afterCookie(page: Page) {
    return page.follow("/cookies/show", { callback: "parse" });
  }
}

Deno.test("a WARC file has a warcinfo, request records, every redirect hop and digests a WARC reader confirms", async () => {
  const site = await startFixtureSite();
  try {
    await withTempDir(async (dir) => {
      const warc = join(dir, "crawl.warc.gz");
      await crawlItems(new Archived(site.url), { warc, obeyRobotsTxt: false, concurrency: 1 });
      const read = await readWarc(warc);
      assert.equal(read[0].type, "warcinfo");
      assert.match(
        new TextDecoder().decode(read[0].block),
        /^software: Netweir\/[\d.]+\r\nformat: WARC File Format 1\.1\r\n/,
      );
      assert.equal(read[0].field("WARC-Filename"), "crawl.warc.gz");
      // Every record's digests are those of what the reader read.
      for (const record of read) {
        assert.equal(record.blockDigest, sha1Base32(record.block), `${record.type} ${record.uri} block`);
        if (record.type !== "warcinfo") {
          assert.equal(record.payloadDigest, sha1Base32(record.payload), `${record.type} ${record.uri} payload`);
        }
      }
      // A response, then its request pointing at it, for each request sent: redirect hops included.
      const responses = read.filter((record) => record.type === "response");
      const requests = read.filter((record) => record.type === "request");
      assert.equal(requests.length, responses.length);
      for (const request of requests) {
        const response = responses.find((candidate) => candidate.id === request.concurrentTo);
        assert.ok(response, `request record for ${request.uri} points at no response`);
        assert.equal(response.uri, request.uri);
      }
      const chain = responses.filter((record) => /\/(redirect\/\d|echo)/.test(record.uri!));
      assert.deepEqual(chain.map((record) => [new URL(record.uri!).pathname, record.status]), [
        ["/redirect/2", 302],
        ["/redirect/1", 302],
        ["/echo", 200],
      ]);
      const gzip = responses.find((record) => record.uri!.endsWith("/gzip"))!;
      assert.match(new TextDecoder().decode(gzip.payload), /<h1>Compressed page<\/h1>/);
    });
  } finally {
    await site.close();
  }
});

Deno.test("a HAR file lists each redirect hop and fills the cookies of requests and responses", async () => {
  const site = await startFixtureSite();
  try {
    await withTempDir(async (dir) => {
      const har = join(dir, "crawl.har");
      await crawlItems(new Archived(site.url), { har, obeyRobotsTxt: false, concurrency: 1 });
      // deno-lint-ignore no-explicit-any -- a HAR file's JSON, looked into by path
      const entries: Array<Record<string, any>> = JSON.parse(await readFile(har, "utf8")).log.entries;
      const byPath = (path: string) => entries.filter((entry) => new URL(entry.request.url).pathname === path);
      assert.equal(byPath("/redirect/2")[0].response.status, 302);
      assert.equal(byPath("/redirect/2")[0].response.redirectURL, `${site.url}redirect/1`);
      assert.equal(byPath("/redirect/1")[0].response.redirectURL, `${site.url}echo`);
      assert.equal(byPath("/echo")[0].response.status, 200);
      assert.deepEqual(byPath("/cookies/set")[0].response.cookies, [{ name: "session", value: "abc", path: "/" }]);
      assert.deepEqual(byPath("/cookies/show")[0].request.cookies, [{ name: "session", value: "abc" }]);
    });
  } finally {
    await site.close();
  }
});
