/**
 * The `<meta>` prescan steps over text to the next `<` rather than byte by byte (src/spider/charset.ts): a
 * declaration after long runs of text, attributes and comments is found exactly where the byte-by-byte scan found it,
 * and one past the first 1,024 bytes only in the head, as before.
 */
import assert from "node:assert/strict";
import { detectEncoding } from "../../src/spider/charset.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const words = (n: number) => "plain words with no tags ".repeat(n);

Deno.test("a meta charset after a run of text in the first 1,024 bytes is found", () => {
  const page = `<!doctype html><html><head><title>${words(20)}</title><meta charset="shift_jis"></head>`;
  assert.ok(page.indexOf("<meta") < 1024 && page.indexOf("<meta") > 400);
  assert.equal(detectEncoding(bytes(page + `<body>${words(100)}</body>`), null), "shift_jis");
});

Deno.test("text that only looks like a tag, in a comment or an attribute, hides nothing and declares nothing", () => {
  const inComment = `<html><head><!-- ${words(5)} <meta charset="koi8-r"> --><meta charset="euc-kr"></head>`;
  assert.equal(detectEncoding(bytes(inComment), null), "euc-kr");
  const inAttribute = `<html><head><link title="${words(5)}<meta charset=koi8-r>"><meta charset="gbk"></head>`;
  assert.equal(detectEncoding(bytes(inAttribute), null), "gbk");
});

Deno.test("past the first 1,024 bytes a meta is taken in the head only, and a page of text alone declares nothing", () => {
  const lateInHead = `<html><head><title>${words(60)}</title><meta charset="windows-1251"></head><body>x</body>`;
  assert.ok(lateInHead.indexOf("<meta") > 1024);
  assert.equal(detectEncoding(bytes(lateInHead), null), "windows-1251");
  const lateInBody = `<html><head></head><body><p>${words(60)}</p><meta charset="windows-1251"></body>`;
  assert.equal(detectEncoding(bytes(lateInBody), null), "windows-1252");
  assert.equal(detectEncoding(bytes(words(100)), null), "windows-1252");
});
