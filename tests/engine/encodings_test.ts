import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { crawlItems } from "./_crawl.ts";
import { DECLARATIONS, ENCODED_PAGES } from "../helpers/fixture_encodings.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";

/** Reads each encoded page's heading and follows its search link. */
class Encoded extends Spider {
  constructor(readonly urls: string[]) {
    super();
  }
  override async *start() {
    for (const url of this.urls) yield new Request({ url });
  }
  override *parse(page: Page) {
    yield { url: page.url, encoding: page.encoding, h1: page.css("h1").text(), links: page.links() };
    // dontFilter: several pages link to the same target, and each must be seen to send it.
    yield page.follow(page.css("a").attr("href")!, { callback: this.target, dontFilter: true });
  }
  target(_page: Page) {}
}

/** The canonical name of each sample's encoding (latin-1 is windows-1252 on the web, as the WHATWG says). */
const CANONICAL: Record<string, string> = {
  cp1252: "windows-1252",
  latin1: "windows-1252",
  shift_jis: "shift_jis",
  gbk: "gbk",
  "euc-kr": "euc-kr",
};

Deno.test("pages in cp1252, latin-1, Shift_JIS, GBK and EUC-KR decode as browsers do, and their queries go out in their encoding", async () => {
  const site = await startFixtureSite();
  try {
    const urls = Object.keys(ENCODED_PAGES).flatMap((key) =>
      DECLARATIONS.map((how) => `${site.url}encoded/${key}/${how}`)
    );
    const { items } = await crawlItems(new Encoded(urls), { obeyRobotsTxt: false });
    assert.equal(items.length, urls.length);
    for (const item of items) {
      const [key, how] = String(item.url).split("/").slice(-2);
      const sample = ENCODED_PAGES[key];
      const legacyLatin = key === "cp1252" || key === "latin1";
      if (how !== "none" || legacyLatin) {
        // Declared in any of the three places (or a Western page with no declaration at all): right every time.
        assert.equal(item.encoding, CANONICAL[key], `${key}/${how}`);
        assert.equal(item.h1, sample.text, `${key}/${how}`);
        const target = `${site.origin}/encoded/target?q=${sample.query}`;
        assert.deepEqual(item.links, [target], `${key}/${how}`);
      } else {
        // Undeclared bytes that are not UTF-8: windows-1252, the fallback browsers use, never U+FFFD.
        assert.equal(item.encoding, "windows-1252", `${key}/${how}`);
        const bytes = new Uint8Array(sample.textBytes.match(/../g)!.map((byte) => parseInt(byte, 16)));
        assert.equal(item.h1, new TextDecoder("windows-1252").decode(bytes));
        assert.doesNotMatch(String(item.h1), /\ufffd/);
      }
    }
    // Each declared page (and each undeclared Western one) sent its query in its encoding. An undeclared CJK page,
    // read as windows-1252, sends its bytes back as they were, unless one is ASCII (Shift_JIS's 0x7B, a "{").
    for (const [key, sample] of Object.entries(ENCODED_PAGES)) {
      const asciiByte = sample.wordBytes.match(/../g)!.some((byte) => parseInt(byte, 16) < 0x80);
      const roundTrips = key === "cp1252" || key === "latin1" || !asciiByte;
      const expected = roundTrips ? 4 : 3;
      assert.equal(site.hits(`/encoded/target?q=${sample.query}`), expected, `${key} sent ${sample.query}`);
    }
  } finally {
    await site.close();
  }
});
