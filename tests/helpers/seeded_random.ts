/**
 * Seeded pseudo-random numbers in [0, 1) (mulberry32) for the tests that generate their input: the same seed gives
 * the same sequence, so a failure can be replayed.
 */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A text of `min` to `min + spread - 1` pieces drawn from `pieces`: the generated pages of the parser tests. */
export function randomPieces(pieces: readonly string[], next: () => number, min: number, spread: number): string {
  let text = "";
  const length = min + Math.floor(next() * spread);
  for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
  return text;
}
