/**
 * SHA-1 of a string's UTF-8 bytes, as 40 hex characters: the hash behind request fingerprints.
 *
 * Written out here rather than taken from node:crypto because of what a call costs in memory, not in time. Every
 * `hash()` call converts its string into a fresh native buffer that is only freed when the engine gets round to
 * collecting it; a push of a million URLs left about 80 MB of such buffers in the process at its peak. This one
 * encodes into a scratch buffer it reuses, so hashing a million strings allocates nothing but the million results.
 *
 * The scratch buffers are module-private and used only within one synchronous call, so nothing is ever seen from
 * one call to the next and two crawls in one process cannot disturb each other.
 */

/** Big enough for any URL-sized input without growing; larger inputs get a buffer of their own for that call. */
const SCRATCH_BYTES = 16 * 1024;

const encoder = new TextEncoder();
let scratch = new Uint8Array(SCRATCH_BYTES);
const words = new Int32Array(80);

/** The two hex digits of every byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function wordHex(word: number): string {
  return HEX[(word >>> 24) & 0xff] + HEX[(word >>> 16) & 0xff] + HEX[(word >>> 8) & 0xff] + HEX[word & 0xff];
}

/** SHA-1 (FIPS 180-4) of `text` encoded as UTF-8 (lone surrogates as U+FFFD, as TextEncoder and Buffer do). */
export function sha1Hex(text: string): string {
  // UTF-8 takes at most three bytes per UTF-16 unit; then 0x80, up to 63 bytes of padding and the 8-byte length.
  const room = text.length * 3 + 72;
  let buffer = scratch;
  if (room > buffer.length) {
    buffer = new Uint8Array(room);
    if (room <= 4 * SCRATCH_BYTES) scratch = buffer;
  }
  const length = encoder.encodeInto(text, buffer).written;
  const padded = (length + 8 + 64) & ~63; // the message, 0x80, zeros, the 64-bit length: a multiple of 64 bytes
  buffer[length] = 0x80;
  buffer.fill(0, length + 1, padded - 8);
  // The length in bits, big-endian. Inputs are far below 2^32 bytes, so the high word is length / 2^29.
  const bitsHigh = Math.floor(length / 0x20000000);
  const bitsLow = (length * 8) >>> 0;
  buffer[padded - 8] = bitsHigh >>> 24;
  buffer[padded - 7] = bitsHigh >>> 16;
  buffer[padded - 6] = bitsHigh >>> 8;
  buffer[padded - 5] = bitsHigh;
  buffer[padded - 4] = bitsLow >>> 24;
  buffer[padded - 3] = bitsLow >>> 16;
  buffer[padded - 2] = bitsLow >>> 8;
  buffer[padded - 1] = bitsLow;

  let h0 = 0x67452301, h1 = 0xefcdab89 | 0, h2 = 0x98badcfe | 0, h3 = 0x10325476, h4 = 0xc3d2e1f0 | 0;
  const w = words;
  for (let block = 0; block < padded; block += 64) {
    for (let i = 0; i < 16; i++) {
      const at = block + i * 4;
      w[i] = (buffer[at] << 24) | (buffer[at + 1] << 16) | (buffer[at + 2] << 8) | buffer[at + 3];
    }
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number, k: number;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc | 0;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6 | 0;
      }
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return wordHex(h0) + wordHex(h1) + wordHex(h2) + wordHex(h3) + wordHex(h4);
}
