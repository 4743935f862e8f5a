/**
 * The V8 heap settings a crawl runs with when Netweir is the program (the `netweir` command and the processes it
 * starts), not when it is a library inside someone else's program.
 *
 * A crawl allocates fast (a page's text, its parsed elements, a request per link: some 150 KB a page) and keeps
 * little (25 to 30 MB live on a 21,000-page shop), with 64 requests in flight whose state outlives a young-generation
 * collection or two. V8's defaults are sized for a browser tab's bursts: a young generation of up to 64 MB (two
 * 32 MB semi-spaces on Deno 2.9), and an old generation allowed to grow to up to four times what the last full
 * collection kept before the next. On that shop it held 230 to 350 MB for 30 MB of live data. With semi-spaces of 16 MB
 * and the old generation allowed half again as much as it kept, the same crawl peaks 60 to 110 MB lower at the same
 * CPU time (docs/design/engine.md, "Memory"); a smaller young generation (8 MB) saves a little more memory for 10 to
 * 20 % more CPU, as in-flight requests are promoted more often, so it is not taken.
 */
export const CRAWL_V8_FLAGS: readonly string[] = ["--max-semi-space-size=16", "--heap-growing-percent=50"];

/** The name of a V8 flag (`--max-semi-space-size=16` → `max-semi-space-size`, `_` read as `-`). */
export function v8FlagName(flag: string): string {
  return flag.replace(/^--/, "").split("=")[0].replaceAll("_", "-");
}

/** The flags of `wanted` whose name none of `given` (flags the user passed) sets: a user's own choice wins. */
export function flagsNotGiven(wanted: readonly string[], given: readonly string[]): string[] {
  const named = new Set(given.map(v8FlagName));
  return wanted.filter((flag) => !named.has(v8FlagName(flag)));
}
