/**
 * The JavaScript of a `.ts` spider, kept for its next run on Node. Node 22 strips a TypeScript module's types each
 * time it loads one, with amaro (SWC built to WebAssembly), and loading amaro is most of the cost: about 80 ms and
 * 13 MB of every `netweir crawl spider.ts`, against 1 ms to strip the spider itself (docs/design/engine.md, "A start
 * without undici and amaro"). Deno keeps what it emits in its own cache; this does the same for Node, keyed by the
 * module's URL and text, so an edited spider is stripped again and an unchanged one is read back.
 *
 * It stands aside wherever Node would do something else than strip: a module under node_modules (Node refuses
 * those, and says so), CommonJS, `--experimental-transform-types`, `--enable-source-maps` and
 * `--no-experimental-strip-types`. The cache is the user's own (`$XDG_CACHE_HOME/netweir/typescript`, else
 * `~/.cache/...`, one folder per Node version), never a shared temporary directory: what it holds is run.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import nodeModule from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { dropWarnings } from "./node_warnings.ts";

interface LoadResult {
  format?: string | null;
  source?: string | ArrayBuffer | ArrayBufferView | null;
  shortCircuit?: boolean;
}
type NextLoad = (url: string, context?: unknown) => LoadResult;
interface ModuleHooks {
  registerHooks?: (hooks: { load: (url: string, context: unknown, next: NextLoad) => LoadResult }) => unknown;
  stripTypeScriptTypes?: (code: string, options: { mode: "strip"; sourceUrl: string }) => string;
}

/** Node options under which its loading of TypeScript differs from stripping, or stripping is off. */
const OTHER_TYPESCRIPT_HANDLING = /^--(experimental-transform-types|enable-source-maps|no-experimental-strip-types)$/;

/** The folder kept stripped modules go in, created (private to the user) if need be; undefined if there is none. */
function typeScriptCacheDir(env: Record<string, string | undefined>): string | undefined {
  const home = env.HOME || homedir();
  const base = env.XDG_CACHE_HOME || (home ? join(home, ".cache") : undefined);
  if (!base) return undefined;
  const dir = join(base, "netweir", "typescript", process.version);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return dir;
  } catch {
    return undefined; // a read-only home: Node strips every time, as without the cache
  }
}

/**
 * From now on, TypeScript modules this thread loads come from the cache when their text was stripped before.
 * Does nothing where Node lacks the hooks (before 22.15), with NODE_DISABLE_COMPILE_CACHE=1, or under the options
 * above (`flags`: the user's Node options).
 */
export function cacheStrippedTypeScript(env: Record<string, string | undefined>, flags: readonly string[]): void {
  const { registerHooks, stripTypeScriptTypes } = nodeModule as unknown as ModuleHooks;
  if (!registerHooks || !stripTypeScriptTypes) return;
  if (env.NODE_DISABLE_COMPILE_CACHE === "1") return;
  if (flags.some((flag) => OTHER_TYPESCRIPT_HANDLING.test(flag.split("=")[0]))) return;
  // The folder is found (and made) at the first TypeScript module, not at every start of every command.
  let dir: string | null | undefined = null;
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (loaded.format !== "module-typescript" || !url.startsWith("file:") || url.includes("/node_modules/")) {
        return loaded;
      }
      if (dir === null) dir = typeScriptCacheDir(env);
      if (dir === undefined) return loaded; // no folder to keep it in: Node strips it, as without the cache
      const source = typeof loaded.source === "string"
        ? loaded.source
        : Buffer.from(loaded.source as ArrayBuffer).toString("utf8");
      const file = join(dir, `${createHash("sha256").update(url).update("\0").update(source).digest("hex")}.js`);
      let code: string;
      try {
        code = readFileSync(file, "utf8");
      } catch {
        code = withoutExperimentalWarning(() => stripTypeScriptTypes(source, { mode: "strip", sourceUrl: url }));
        keep(file, code);
      }
      return { format: "module", source: code, shortCircuit: true };
    },
  });
}

/** Writes the file whole or not at all: two crawls starting at once each write their own and rename it in place. */
function keep(file: string, code: string): void {
  const partial = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(partial, code, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // Not kept: the next run strips it again.
  }
}

/**
 * Node warns that `stripTypeScriptTypes` is experimental the first time it is called; it is what Node itself runs
 * on every `.ts` module (unflagged and without a warning), so the warning tells a user nothing.
 */
function withoutExperimentalWarning<T>(run: () => T): T {
  const restore = dropWarnings("stripTypeScriptTypes is an experimental feature");
  try {
    return run();
  } finally {
    restore();
  }
}
