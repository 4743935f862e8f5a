/**
 * UTF-8 to text on Node, for page bodies. Node 22's TextDecoder turns an 11 KB page with one `£` in it into a string
 * in 15 to 35 µs, where Deno's takes 3 to 5 (Node's `Buffer#toString` is no faster). Copying bytes as Latin-1 is a
 * memcpy (2 µs for the same page), and simdutf's `isAscii` scans the page in about 1.
 *
 * Most pages are ASCII, or ASCII with a few characters of Latin-1's upper half (£, é, ü, ©, non-breaking spaces): in
 * UTF-8 those are two bytes, a lead of C2 or C3 and one continuation byte. Such a page becomes one Latin-1 byte string
 * with each pair folded into its one byte, and then one string copied from it: 4 to 6 µs. Any other non-ASCII byte
 * (a character past U+00FF, a byte order mark, a broken sequence) sends the page to TextDecoder, as before.
 *
 * Why not decode the non-ASCII stretches apart and join the pieces: the joined string is a rope, and htmlparser2
 * reading it one character at a time took 25 to 30 µs more per page than reading a flat string, more than the
 * decoding saved. The string made here is flat, and a one-byte string, as V8 makes for text of Latin-1 characters.
 * tests/runtime/node_utf8_test.ts holds it to TextDecoder.
 */
import { Buffer, isAscii } from "node:buffer";

/** Bytes looked at by one isAscii call: blocks without non-ASCII bytes are skipped in one step. */
const BLOCK = 1024;

const lenient = new TextDecoder("utf-8");
const strict = new TextDecoder("utf-8", { fatal: true });

/** `bytes` decoded as UTF-8, as `new TextDecoder("utf-8", { fatal })` decodes them (throwing TypeError likewise). */
export function decodeUtf8OnNode(bytes: Uint8Array, fatal = false): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(view)) return view.toString("latin1");
  return latin1Folded(view) ?? (fatal ? strict : lenient).decode(bytes);
}

/**
 * The text of `view` when every non-ASCII character in it is a two-byte sequence for U+0080 to U+00FF; else
 * undefined. Built as Latin-1 bytes, each pair folded into one, so that the string comes out in one copy.
 */
function latin1Folded(view: Buffer): string | undefined {
  const length = view.length;
  let folded: Buffer | undefined;
  /** Bytes of `view` before `read` are in `folded` up to `written`. */
  let read = 0;
  let written = 0;
  for (let block = 0; block < length; block += BLOCK) {
    const blockEnd = Math.min(length, block + BLOCK);
    if (blockEnd <= read || isAscii(view.subarray(Math.max(block, read), blockEnd))) continue;
    for (let at = Math.max(block, read); at < blockEnd; at++) {
      const lead = view[at];
      if (lead < 0x80) continue;
      const next = at + 1 < length ? view[at + 1] : 0;
      if ((lead !== 0xc2 && lead !== 0xc3) || (next & 0xc0) !== 0x80) return undefined;
      folded ??= Buffer.allocUnsafe(length);
      written += view.copy(folded, written, read, at);
      folded[written++] = ((lead & 0x03) << 6) | (next & 0x3f);
      read = at + 2;
      at++;
    }
  }
  if (folded === undefined) return view.toString("latin1");
  written += view.copy(folded, written, read, length);
  return folded.toString("latin1", 0, written);
}
