import assert from "node:assert/strict";
import { TrapDetector } from "../../src/engine/traps.ts";

const YEAR = new Date().getFullYear();
const detector = () => new TrapDetector(2083);

Deno.test("ordinary URLs are not traps", () => {
  const traps = detector();
  const urls = [
    "https://books.toscrape.com/",
    "https://books.toscrape.com/catalogue/page-2.html",
    "https://books.toscrape.com/catalogue/a-light-in-the-attic_1000/index.html",
    "https://example.com/a/b/c/d/e/f/g",
    "https://example.com/a/a/b",
    "https://example.com/a/b/a/b",
    "https://example.com/docs/v1/api/v1/users",
    "https://example.com/search?q=shoes&page=3&sort=price",
    `https://example.com/blog/${YEAR}/05/a-post`,
    `https://example.com/blog/${YEAR - 20}/12/31/old-post`,
    `https://example.com/events?date=${YEAR}-06-01`,
    `https://example.com/archive?year=${YEAR + 1}`,
    "https://example.com/archive/1970/01/",
  ];
  for (const url of urls) assert.equal(traps.check(url), undefined, url);
});

Deno.test("numbers that are ids, not years, are not calendar traps", () => {
  const traps = detector();
  const urls = [
    "https://example.com/product/1234",
    "https://example.com/questions/1500/how-do-i",
    "https://example.com/item/9999/reviews",
    "https://example.com/item?id=5000",
    "https://example.com/list?page=1200",
    "https://example.com/list?offset=4000&limit=20",
    "https://example.com/tag/1969",
    "https://example.com/calculators/5000",
    "https://example.com/vote?candidate=1234",
    "https://example.com/changes?update=9000",
  ];
  for (const url of urls) assert.equal(traps.check(url), undefined, url);
});

Deno.test("a segment repeated three times in a row is a trap", () => {
  const traps = detector();
  assert.equal(traps.check("https://example.com/a/a/a"), "repeating path segments");
  assert.equal(traps.check("https://example.com/x/page/page/page/y"), "repeating path segments");
});

Deno.test("a group of segments repeated three times in a row is a trap", () => {
  const traps = detector();
  assert.equal(traps.check("https://example.com/a/b/a/b/a/b"), "repeating path segments");
  assert.equal(traps.check("https://example.com/start/x/y/z/x/y/z/x/y/z/end"), "repeating path segments");
});

Deno.test("the same segments three times but not in a row are not a trap", () => {
  assert.equal(detector().check("https://example.com/a/b/a/c/a/d"), undefined);
  assert.equal(detector().check("https://example.com/x/y/z/x/y/q/x/y/z"), undefined);
});

Deno.test("a path deeper than 24 segments is a trap, and 24 is not", () => {
  const segments = Array.from({ length: 25 }, (_, i) => `s${i}`);
  const traps = detector();
  assert.equal(traps.check(`https://example.com/${segments.slice(0, 24).join("/")}`), undefined);
  assert.equal(traps.check(`https://example.com/${segments.join("/")}`), "path too deep");
});

Deno.test("a URL longer than max_url_length is a trap, and one of exactly that length is not", () => {
  const traps = new TrapDetector(100);
  const base = "https://example.com/";
  const exact = base + "x".repeat(100 - base.length);
  assert.equal(exact.length, 100);
  assert.equal(traps.check(exact), undefined);
  assert.equal(traps.check(exact + "y"), "url too long");
  assert.equal(detector().check(base + "x".repeat(2100)), "url too long");
});

Deno.test("a calendar year far in the future is a trap, in the path or in the query", () => {
  const traps = detector();
  const far = YEAR + 10;
  for (
    const url of [
      `https://example.com/calendar/${far}/01/`,
      `https://example.com/calendar/${far}/1/15`,
      `https://example.com/events/${far}-03-01`,
      `https://example.com/calendar?year=${far}`,
      `https://example.com/calendar?year=${far}&month=1`,
      `https://example.com/calendar?date=${far}-01-01`,
      `https://example.com/calendar?month=${far}-02`,
      `https://example.com/calendar?from=${far}.12.31`,
      `https://example.com/calendar/${far}`,
      `https://example.com/events?startDate=${far}`,
      `https://example.com/events?year_from=${far}`,
    ]
  ) assert.equal(traps.check(url), "calendar out of range", url);
});

Deno.test("a calendar year far in the past is a trap, in the path or in the query", () => {
  const traps = detector();
  for (
    const url of [
      "https://example.com/calendar/1801/01/",
      "https://example.com/events/1801-01-01",
      "https://example.com/calendar?year=1801",
      "https://example.com/calendar?date=1969-12-31",
    ]
  ) assert.equal(traps.check(url), "calendar out of range", url);
});

Deno.test("years up to three ahead and back to 1970 are fine, one more either way is not", () => {
  const traps = detector();
  assert.equal(traps.check(`https://example.com/cal/${YEAR + 3}/12/`), undefined);
  assert.equal(traps.check(`https://example.com/cal/${YEAR + 4}/01/`), "calendar out of range");
  assert.equal(traps.check(`https://example.com/cal?date=1970-01-01`), undefined);
  assert.equal(traps.check(`https://example.com/cal?date=1969-12-31`), "calendar out of range");
});

Deno.test("the checks look at one URL at a time: asking twice gives the same answer", () => {
  const traps = detector();
  for (let i = 0; i < 5; i++) {
    assert.equal(traps.check("https://example.com/p?x=1"), undefined);
    assert.equal(traps.check("https://example.com/a/a/a"), "repeating path segments");
  }
});

Deno.test("more than 2000 query strings on one path are endless query variants", () => {
  const traps = detector();
  for (let i = 1; i <= 2000; i++) {
    assert.equal(traps.countVariant(`https://example.com/list?session=${i}`), undefined, `variant ${i}`);
  }
  assert.equal(traps.countVariant("https://example.com/list?session=2001"), "endless query variants");
  assert.equal(traps.countVariant("https://example.com/list?session=2002"), "endless query variants");
});

Deno.test("query variants are counted per host and path, and URLs without a query are never counted", () => {
  const traps = detector();
  for (let i = 0; i < 2000; i++) traps.countVariant(`https://example.com/list?s=${i}`);
  assert.equal(traps.countVariant("https://example.com/other?s=1"), undefined);
  assert.equal(traps.countVariant("https://other.example.com/list?s=1"), undefined);
  assert.equal(traps.countVariant("https://example.com/list"), undefined);
  for (let i = 0; i < 3000; i++) assert.equal(traps.countVariant(`https://example.com/p${i}`), undefined);
});

Deno.test("query variants are counted for the paths counted most recently, a trap's among them", () => {
  const kept = 1000;
  const traps = new TrapDetector(2083, kept);
  // A trap yields a variant now and then among a broad crawl's many other paths with a query string.
  for (let i = 0; i < 3 * kept; i++) {
    if (i % 100 === 0) assert.equal(traps.countVariant(`https://trap.example/cal?day=${i}`), undefined);
    traps.countVariant(`https://host${i}.example/search?q=1`);
  }
  for (let day = 0; day < 2000 - 30; day++) traps.countVariant(`https://trap.example/cal?d=${day}`);
  assert.equal(traps.countVariant("https://trap.example/cal?day=last"), "endless query variants", "the trap was kept");
  // A path counted once, long ago, was forgotten: it starts again from 0.
  for (let i = 0; i < 1999; i++) traps.countVariant(`https://host0.example/search?q=${i + 2}`);
  assert.equal(traps.countVariant("https://host0.example/search?q=last"), undefined);
});

Deno.test("two detectors count query variants each on their own", () => {
  const first = detector();
  const second = detector();
  for (let i = 0; i < 2001; i++) first.countVariant(`https://example.com/list?s=${i}`);
  assert.equal(first.countVariant("https://example.com/list?s=x"), "endless query variants");
  assert.equal(second.countVariant("https://example.com/list?s=x"), undefined);
});
