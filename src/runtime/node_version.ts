/**
 * The oldest Node the npm build runs on, and the line that refuses an older one. Node 22.12 is the first Node 22 that
 * loads an ES module from `require()` without a flag (what `require("netweir")` in a CommonJS project needs), and
 * every crawl needs Node 22's `Promise.withResolvers`: on Node 20 the package installed with only an engine warning,
 * `version` worked, and each crawl failed with "Promise.withResolvers is not a function".
 */

/** The oldest Node release Netweir runs on, as [major, minor]. */
export const OLDEST_NODE = [22, 12] as const;
/** The oldest Node release that strips the types of `.ts` spiders without a flag. */
export const OLDEST_NODE_FOR_TS = [22, 18] as const;

function atLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [have, haveMinor] = version.split(".").map(Number);
  return have > major || (have === major && haveMinor >= minor);
}

/** One line refusing Node `version` ("20.20.2"), or undefined when Netweir runs on it. */
export function oldNodeRefusal(version: string): string | undefined {
  if (atLeast(version, OLDEST_NODE)) return undefined;
  return `this is Node.js ${version}; Netweir needs Node.js ${OLDEST_NODE.join(".")} or later ` +
    `(${OLDEST_NODE_FOR_TS.join(".")} or later for .ts spiders)`;
}

/** The refusal for the Node this process runs on; undefined on Deno (whose `process.versions.node` is its own). */
export function thisNodeRefusal(): string | undefined {
  if ("Deno" in globalThis) return undefined;
  const version = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return version === undefined ? undefined : oldNodeRefusal(version);
}
