/**
 * A module graph as `deno info --json` gives it (run from the repository root), for the tests that read the
 * structure of the code: its layers, what a plain crawl loads, which npm packages a first run needs.
 */
import assert from "node:assert/strict";
import { runtime } from "../../src/runtime/mod.ts";
import { REPO_ROOT } from "./cli.ts";
import { runCommand } from "./command.ts";

export interface GraphDependency {
  code?: { specifier: string };
  type?: { specifier: string };
  isDynamic?: boolean;
}

export interface GraphModule {
  specifier: string;
  dependencies?: GraphDependency[];
}

export interface GraphPackage {
  name: string;
  version: string;
  dependencies: string[];
  localPath: string;
}

export interface ModuleGraph {
  roots: string[];
  modules: GraphModule[];
  redirects: Record<string, string>;
  npmPackages: Record<string, GraphPackage>;
}

/** The graph of `entry` (a path relative to the repository root, or absolute). */
export async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const deno = runtime.selfCommand(entry).command;
  const { code, stdout, stderr } = await runCommand(deno, ["info", "--json", entry], { cwd: REPO_ROOT });
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout);
}
