import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { openXmlFeed, xmlName } from "../../src/output/xml.ts";
import { readText, withTempDir } from "./temp_dir.ts";
import { parseXmlStrict, parseXmlWithHtmlparser2, type XmlNode } from "./xml_check.ts";

const HEAD = '<?xml version="1.0" encoding="utf-8"?>\n<items>\n';

/** Drops the newlines the feed puts between items, so trees compare by content. */
function withoutLayout(node: XmlNode): XmlNode {
  return {
    name: node.name,
    children: node.children
      .filter((child) => typeof child !== "string" || node.name !== "items" || child.trim() !== "")
      .map((child) => (typeof child === "string" ? child : withoutLayout(child))),
  };
}

const el = (name: string, ...children: (XmlNode | string)[]): XmlNode => ({ name, children });

Deno.test("an XML feed writes items as Scrapy's XmlItemExporter does", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.xml");
    const feed = await openXmlFeed(path, { overwrite: true });
    assert.equal(await readText(path), HEAD);
    await feed.write([{ title: "Color TV", price: 1200 }]);
    await feed.write([{ title: "DVD player", price: 200 }]);
    await feed.close();
    assert.equal(
      await readText(path),
      HEAD +
        "<item><title>Color TV</title><price>1200</price></item>\n" +
        "<item><title>DVD player</title><price>200</price></item>\n" +
        "</items>\n",
    );
  });
});

Deno.test("XML items hold arrays as value elements and objects as nested elements", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.xml");
    const feed = await openXmlFeed(path, { overwrite: true });
    await feed.write([{
      tags: ["a", "b"],
      seller: { name: "Ann", ratings: [5, 4] },
      grid: [[1, 2], []],
      inStock: true,
      discount: null,
      skipped: undefined,
    }]);
    await feed.close();
    const text = await readText(path);
    assert.equal(
      text,
      HEAD +
        "<item><tags><value>a</value><value>b</value></tags>" +
        "<seller><name>Ann</name><ratings><value>5</value><value>4</value></ratings></seller>" +
        "<grid><value><value>1</value><value>2</value></value><value></value></grid>" +
        "<inStock>true</inStock><discount></discount></item>\n</items>\n",
    );
    const expected = el(
      "items",
      el(
        "item",
        el("tags", el("value", "a"), el("value", "b")),
        el("seller", el("name", "Ann"), el("ratings", el("value", "5"), el("value", "4"))),
        el("grid", el("value", el("value", "1"), el("value", "2")), el("value")),
        el("inStock", "true"),
        el("discount"),
      ),
    );
    assert.deepEqual(withoutLayout(parseXmlStrict(text)), expected);
    assert.deepEqual(withoutLayout(parseXmlWithHtmlparser2(text)), expected);
  });
});

Deno.test("keys that are not XML names are made into names", () => {
  assert.equal(xmlName("title"), "title");
  assert.equal(xmlName("first name"), "first_name");
  assert.equal(xmlName("2nd"), "_2nd");
  assert.equal(xmlName("-x"), "_-x");
  assert.equal(xmlName("a:b"), "a_b");
  assert.equal(xmlName("<b>&"), "_b__");
  assert.equal(xmlName(""), "_");
  assert.equal(xmlName("price§×2.€"), "price__2.€");
  assert.equal(xmlName("名前"), "名前");
  assert.equal(xmlName("a\u0000b"), "a_b");
});

Deno.test("XML text is escaped, control characters are removed and the document stays well-formed", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.xml");
    const feed = await openXmlFeed(path, { overwrite: true });
    await feed.write([{
      "odd key!": "a < b && c > \"d\" ]]> 'e'",
      control: "bell\u0007 nul\u0000 esc\u001b tab\t nl\n cr\r end\uFFFF lone\uD800!",
      unicode: "Ünïcödé 🕷️ 漢字",
      "1": "digit key",
    }]);
    await feed.close();
    const text = await readText(path);
    assert.ok(text.includes("<odd_key_>a &lt; b &amp;&amp; c &gt; \"d\" ]]&gt; 'e'</odd_key_>"));
    assert.ok(text.includes("<control>bell nul esc tab\t nl\n cr&#13; end lone!</control>"));
    const expected = el(
      "items",
      el(
        "item",
        el("_1", "digit key"),
        el("odd_key_", "a < b && c > \"d\" ]]> 'e'"),
        el("control", "bell nul esc tab\t nl\n cr\r end lone!"),
        el("unicode", "Ünïcödé 🕷️ 漢字"),
      ),
    );
    assert.deepEqual(withoutLayout(parseXmlStrict(text)), expected);
    assert.deepEqual(withoutLayout(parseXmlWithHtmlparser2(text)), expected);
  });
});

Deno.test("an XML feed with no items is a well-formed empty document", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.xml");
    const feed = await openXmlFeed(path, { overwrite: true });
    await feed.write([]);
    await feed.close();
    const text = await readText(path);
    assert.equal(text, HEAD + "</items>\n");
    assert.deepEqual(withoutLayout(parseXmlStrict(text)), el("items"));
  });
});

Deno.test("the strict XML check used by these tests rejects malformed documents", () => {
  const head = '<?xml version="1.0" encoding="utf-8"?>\n';
  assert.throws(() => parseXmlStrict(head + "<items><item></items>"), SyntaxError);
  assert.throws(() => parseXmlStrict(head + "<items>a & b</items>"), SyntaxError);
  assert.throws(() => parseXmlStrict(head + "<items><1a></1a></items>"), SyntaxError);
  assert.throws(() => parseXmlStrict(head + "<items>\u0001</items>"), SyntaxError);
  assert.throws(() => parseXmlStrict(head + "<items></items><items></items>"), SyntaxError);
  assert.throws(() => parseXmlStrict(head + "<items>"), SyntaxError);
});

Deno.test("appending to a non-empty XML file is refused and overwriting replaces it", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "items.xml");
    const old = HEAD + "<item><n>1</n></item>\n</items>\n";
    await writeFile(path, old);
    await assert.rejects(
      openXmlFeed(path, { overwrite: false }),
      new UsageError(`cannot append to existing XML file ${path}; use -O to overwrite`),
    );
    assert.equal(await readText(path), old);
    const feed = await openXmlFeed(path, { overwrite: true });
    await feed.write([{ n: 2 }]);
    await feed.close();
    assert.equal(await readText(path), HEAD + "<item><n>2</n></item>\n</items>\n");
  });
});
