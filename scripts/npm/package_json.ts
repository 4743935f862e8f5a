/**
 * The npm package.json, generated from deno.json so the two never disagree: name, version, exports, a `netweir`
 * bin, and every npm dependency at the version deno.json pins.
 */
import { OLDEST_NODE } from "../../src/runtime/node_version.ts";

export interface DenoConfig {
  name: string;
  version: string;
  license?: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
}

/** The dist file a source entry becomes: `./mod.ts` -> `./mod.js`. */
export function distPath(source: string): string {
  return source.replace(/\.ts$/, ".js");
}

/** npm dependencies from an imports map: `"ioredis": "npm:ioredis@5.9.2"` -> `{ ioredis: "5.9.2" }`. */
export function npmDependencies(imports: Record<string, string>): Record<string, string> {
  const dependencies: Record<string, string> = {};
  for (const target of Object.values(imports)) {
    const match = /^npm:(@?[^@/]+(?:\/[^@/]+)?)@([^/]+)/.exec(target);
    if (match) dependencies[match[1]] = match[2];
  }
  return Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The npm package's name: deno.json's without its scope. JSR takes only scoped names (`@netweir/netweir`); on npm the
 * package stays `netweir`, the name `import "netweir"`, `require("netweir")` and `npx netweir` use.
 */
export function npmName(denoName: string): string {
  return denoName.replace(/^@[^/]+\//, "");
}

export function packageJson(config: DenoConfig): Record<string, unknown> {
  // `default` beside `import`: require() of the same ES modules (Node 22.12's require(esm)), for CommonJS projects,
  // which `npm init -y` makes. Without it require("netweir") failed with ERR_PACKAGE_PATH_NOT_EXPORTED.
  const exports: Record<string, { types: string; import: string; default: string }> = {};
  for (const [name, source] of Object.entries(config.exports)) {
    const js = distPath(source);
    exports[name] = { types: js.replace(/\.js$/, ".d.ts"), import: js, default: js };
  }
  return {
    name: npmName(config.name),
    version: config.version,
    description: "A web-crawling toolkit: spiders in a few lines, one process or many machines sharing a Redis queue",
    license: config.license ?? "MIT",
    type: "module",
    exports,
    main: distPath(config.exports["."]),
    types: distPath(config.exports["."]).replace(/\.js$/, ".d.ts"),
    bin: { netweir: distPath(config.exports["./cli"]) },
    engines: { node: `>=${OLDEST_NODE.join(".")}` },
    dependencies: npmDependencies(config.imports),
    keywords: ["crawler", "scraper", "spider", "scrapy", "redis"],
  };
}
