/**
 * Times maskSecrets on one text of `size` characters against the same number of characters in texts of 1 KB, and
 * prints the two per-character costs as JSON: `{"long": ns, "short": ns}`. Run in a process of its own by
 * log_test.ts, so that a masking that never ends (as the quadratic one did on 1 MB) is killed rather than waited
 * for. Each figure is the fastest of several rounds: the slowest ones measure the machine's other work.
 *
 * Usage: _mask_timing.ts SHAPE SIZE, where SHAPE names a text in SHAPES.
 */
import { maskSecrets } from "../src/log.ts";
import { runtime } from "../src/runtime/mod.ts";

/** Texts made of one piece repeated: the shapes that made the old patterns scan to the end from every character. */
export const SHAPES: Readonly<Record<string, string>> = {
  letters: "a",
  "url without @": "ab+c.d-",
  "password without @": "x://u:pw",
  "query password": "?pass=v",
};

const SHORT = 1024;
const ROUNDS = 5;

function text(piece: string, size: number): string {
  return piece.repeat(Math.ceil(size / piece.length)).slice(0, size);
}

/** Nanoseconds per character, the fastest of ROUNDS rounds of masking `texts`. */
function perCharacter(texts: string[]): number {
  const characters = texts.reduce((sum, one) => sum + one.length, 0);
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    for (const one of texts) maskSecrets(one);
    best = Math.min(best, performance.now() - start);
  }
  return (best * 1e6) / characters;
}

if (import.meta.main) {
  const [shape, sizeText] = runtime.args();
  const piece = SHAPES[shape];
  const size = Number(sizeText);
  if (piece === undefined || !(size >= SHORT)) throw new TypeError(`usage: _mask_timing.ts SHAPE SIZE (${shape})`);
  // A fresh text per round would time its making too; the same one masked again is as slow every time.
  const short = perCharacter(Array.from({ length: Math.floor(size / SHORT) }, () => text(piece, SHORT)));
  const long = perCharacter([text(piece, size)]);
  await runtime.writeStdout(JSON.stringify({ long, short }) + "\n");
}
