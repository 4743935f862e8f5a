/**
 * The V8 heap settings a crawl runs with when Netweir is the program (the `netweir` command and the processes it
 * starts), not when it is a library inside someone else's program.
 *
 * A crawl allocates fast (a page's text, its parsed elements, a request per link: some 150 KB a page) and keeps
 * little (25 to 30 MB live on a 21,000-page shop), with 64 requests in flight whose state outlives a young-generation
 * collection or two. V8's defaults are sized for other work: an old generation allowed to grow to up to four times
 * what the last full collection kept before the next one, and on Deno 2.9 a young generation of up to 64 MB (two
 * 32 MB semi-spaces; Node 22's V8 stops at 16 MB ones). On that shop the crawl held 230 to 350 MB for 30 MB of live
 * data. Letting the old generation grow by half of what it kept takes 50 to 100 MB off the peak at no measurable CPU
 * cost. The young generation is a trade: smaller semi-spaces collect more often, so more in-flight requests are
 * promoted and the old generation is collected more often. At 8 MB the peak drops by another 15 to 30 MB for 5 to 10 %
 * more CPU on Node, which takes it under 150 MB. On Deno 8 MB cost 15 % while its fetch was the client, and left it
 * above 150 MB; with the HTTP/1.1 client of h1/client.ts (a third of fetch's CPU) the same trade is cheap there too,
 * so both runtimes take 8 MB. Figures: docs/design/engine.md, "The heap settings".
 */
export const CRAWL_V8_FLAGS = {
  deno: ["--max-semi-space-size=8", "--heap-growing-percent=50"],
  node: ["--max-semi-space-size=8", "--heap-growing-percent=50"],
} as const satisfies Record<string, readonly string[]>;

/** The name of a V8 flag (`--max-semi-space-size=16` → `max-semi-space-size`, `_` read as `-`). */
export function v8FlagName(flag: string): string {
  return flag.replace(/^--/, "").split("=")[0].replaceAll("_", "-");
}

/** The flags of `wanted` whose name none of `given` (flags the user passed) sets: a user's own choice wins. */
export function flagsNotGiven(wanted: readonly string[], given: readonly string[]): string[] {
  const named = new Set(given.map(v8FlagName));
  return wanted.filter((flag) => !named.has(v8FlagName(flag)));
}
