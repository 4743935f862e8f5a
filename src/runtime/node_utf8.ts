/**
 * UTF-8 to text on Node, for page bodies. Node 22's TextDecoder turns an 11 KB page with one `£` in it into a string
 * in 15 to 35 µs, where Deno's takes 3 to 5 (Node's `Buffer#toString` is no faster). Copying bytes as Latin-1 is a memcpy (2 µs for the same page), and simdutf's `isAscii` scans the
 * page in about 1. Most pages are ASCII with a little text in other scripts, so this copies the ASCII stretches as
 * Latin-1 and has TextDecoder decode only the stretches of non-ASCII bytes between them: 6 to 9 µs for that page.
 *
 * Why it gives exactly TextDecoder's answer: in UTF-8 an ASCII byte is never part of a multi-byte sequence, and one
 * ends any sequence left incomplete before it (WHATWG's decoder then gives one U+FFFD and reads the ASCII byte as
 * itself, which is what a decoder at the end of a stretch does too). So the stretches decode independently. The
 * only other state is the byte order mark, which a decoder drops at the start of the input alone: the stretch at
 * offset 0 goes to a decoder that drops it, every later one to a decoder that keeps it. `fatal` decoders throw on
 * the same bytes as one decoding the whole input would. tests/runtime/node_utf8_test.ts holds it to TextDecoder.
 *
 * A page mostly in another script (Cyrillic, Japanese) has a non-ASCII stretch every few bytes; after
 * MAX_STRETCHES of them the rest goes to TextDecoder whole, so such a page costs about what it did.
 */
import { Buffer, isAscii } from "node:buffer";

/** Bytes looked at by one isAscii call: the blocks without non-ASCII bytes are skipped in one step. */
const BLOCK = 1024;
/** Non-ASCII stretches decoded one by one before the rest of the input is decoded whole. */
const MAX_STRETCHES = 32;

interface Decoders {
  /** For the stretch at offset 0: drops a byte order mark, as a decoder of the whole input does. */
  atStart: TextDecoder;
  /** For every later stretch: a U+FEFF there is text. */
  inside: TextDecoder;
}

const lenient: Decoders = {
  atStart: new TextDecoder("utf-8"),
  inside: new TextDecoder("utf-8", { ignoreBOM: true }),
};
const strict: Decoders = {
  atStart: new TextDecoder("utf-8", { fatal: true }),
  inside: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }),
};

/** `bytes` decoded as UTF-8, as `new TextDecoder("utf-8", { fatal })` decodes them (throwing TypeError likewise). */
export function decodeUtf8OnNode(bytes: Uint8Array, fatal = false): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.length;
  if (isAscii(view)) return view.toString("latin1");
  const decoders = fatal ? strict : lenient;
  let text = "";
  /** Bytes before `done` are in `text`. */
  let done = 0;
  let stretches = 0;
  for (let block = 0; block < length; block += BLOCK) {
    const blockEnd = Math.min(length, block + BLOCK);
    if (blockEnd <= done || isAscii(view.subarray(Math.max(block, done), blockEnd))) continue;
    for (let at = Math.max(block, done); at < blockEnd; at++) {
      if (view[at] < 0x80) continue;
      if (++stretches > MAX_STRETCHES) {
        const rest = view.subarray(done);
        return text + (done === 0 ? decoders.atStart : decoders.inside).decode(rest);
      }
      let end = at + 1;
      while (end < length && view[end] >= 0x80) end++;
      const decoder = at === 0 ? decoders.atStart : decoders.inside;
      text += view.toString("latin1", done, at) + decoder.decode(view.subarray(at, end));
      done = end;
      at = end - 1;
      if (done >= blockEnd) break;
    }
  }
  return text + view.toString("latin1", done, length);
}
