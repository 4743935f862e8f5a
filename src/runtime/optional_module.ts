/**
 * Loading a part of Netweir only when a crawl uses it (the browser, Redis, PostgreSQL, the job server...).
 *
 * Deno fetches every npm package its module graph can reach before it runs a line, and a dynamic `import()` whose
 * specifier is a string literal is part of that graph: a plain crawl would download Chromium's driver, the Redis and
 * PostgreSQL clients and the job server's web framework on its first run (136 downloads for `deno task demo`). A
 * specifier passed through these functions is not a literal, so Deno loads it when the call runs and not before.
 *
 * The npm build turns each call back into a literal `import()` of the module or the bare package name
 * (scripts/npm/literal_imports.ts): Node resolves a literal dynamic import only when it runs anyway, and the single
 * binary's bundler must see it to bundle it.
 */

/**
 * A module of Netweir's own, by a path relative to `base` (the caller's `import.meta.url`) written with its `.ts`
 * extension, as a literal import would be.
 */
export function importOwnModule<T>(base: string, path: string): Promise<T> {
  return import(new URL(path, base).href) as Promise<T>;
}

/**
 * An npm package by its full `npm:name@version` specifier, the one deno.json's imports map its bare name to
 * (tests/cli/first_run_test.ts holds the two equal). Not the bare name: a package published to JSR has no import map
 * at run time, and JSR rewrites only specifiers it can read when publishing.
 */
export function importPackage<T>(specifier: `npm:${string}`): Promise<T> {
  return import(specifier) as Promise<T>;
}
