/**
 * Dependencies point one way: runtime < errors/log < settings < spider < fetch/queue < output/browser/load < engine
 * < cli/serve. The import graph of every entry point (from `deno info --json`, static and dynamic imports, type-only
 * ones included) is read, and an import from a module into a layer above its own is a failure naming both files.
 */
import assert from "node:assert/strict";
import { REPO_ROOT } from "../helpers/cli.ts";
import { moduleGraph } from "../helpers/module_graph.ts";

/** The layer of each part of src/, lowest first; a module may import from its own layer or any below it. */
const LAYERS: string[][] = [
  ["runtime", "version.ts", "sqlite.ts"],
  ["errors.ts", "log.ts"],
  ["settings"],
  ["spider"],
  ["fetch", "queue"],
  ["output", "browser", "load"],
  ["engine", "run.ts"],
  ["cli", "serve"],
];

const SRC = `file://${REPO_ROOT}/src/`;

/** The layer of a module under src/ (its first path part), or undefined outside src/. */
function layerOf(specifier: string): number | undefined {
  if (!specifier.startsWith(SRC)) return undefined;
  const part = specifier.slice(SRC.length).split("/")[0];
  const layer = LAYERS.findIndex((parts) => parts.includes(part));
  assert.notEqual(layer, -1, `src/${part} is in no layer: add it to LAYERS`);
  return layer;
}

/** Every import from one module of src/ to another, as [importer, imported]. */
async function srcImports(entries: string[]): Promise<[string, string][]> {
  const edges = new Map<string, [string, string]>();
  for (const entry of entries) {
    const info = await moduleGraph(entry);
    for (const module of info.modules) {
      if (!module.specifier.startsWith(SRC)) continue;
      for (const dependency of module.dependencies ?? []) {
        for (const target of [dependency.code?.specifier, dependency.type?.specifier]) {
          if (target?.startsWith(SRC)) edges.set(`${module.specifier} ${target}`, [module.specifier, target]);
        }
      }
    }
  }
  return [...edges.values()];
}

const ENTRIES = ["mod.ts", "cli.ts", "serve.ts", "src/browser/fetcher.ts"];

Deno.test("no module of src/ imports from a layer above its own", async () => {
  const edges = await srcImports(ENTRIES);
  assert.ok(edges.length > 100, `the graph was read (${edges.length} imports)`);
  const upward = edges
    .filter(([from, to]) => layerOf(to)! > layerOf(from)!)
    .map(([from, to]) => `${from.slice(SRC.length)} imports ${to.slice(SRC.length)}`);
  assert.deepEqual(upward, [], "imports from a layer above");
});

Deno.test("the check sees an upward import when there is one", () => {
  // The rule itself, on a made-up pair: a spider module importing the engine is upward, the reverse is not.
  const spider = `${SRC}spider/page.ts`;
  const engine = `${SRC}engine/crawl.ts`;
  assert.ok(layerOf(engine)! > layerOf(spider)!);
  assert.ok(layerOf(`${SRC}runtime/mod.ts`)! < layerOf(`${SRC}errors.ts`)!);
  assert.equal(layerOf(`file://${REPO_ROOT}/mod.ts`), undefined);
});
