import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { distPath, npmDependencies, npmName, packageJson } from "../../scripts/npm/package_json.ts";

const denoJson = JSON.parse(await readFile(new URL("../../deno.json", import.meta.url), "utf8"));

Deno.test("package.json exports exactly what deno.json exports, as .js with types, to import and require", () => {
  const pkg = packageJson(denoJson) as { exports: Record<string, { import: string; types: string; default: string }> };
  assert.deepEqual(Object.keys(pkg.exports).sort(), Object.keys(denoJson.exports).sort());
  for (const [name, source] of Object.entries(denoJson.exports as Record<string, string>)) {
    assert.equal(pkg.exports[name].import, distPath(source));
    assert.equal(pkg.exports[name].default, distPath(source));
    assert.equal(pkg.exports[name].types, distPath(source).replace(/\.js$/, ".d.ts"));
  }
});

Deno.test("package.json has deno.json's name without its JSR scope, its version, the netweir bin and Node 22.12", () => {
  const pkg = packageJson(denoJson) as Record<string, unknown>;
  assert.match(denoJson.name, /^@[a-z0-9-]+\/netweir$/, "JSR takes scoped names only");
  assert.equal(pkg.name, "netweir");
  assert.equal(npmName("@netweir/netweir"), "netweir");
  assert.equal(pkg.version, denoJson.version);
  assert.deepEqual(pkg.bin, { netweir: "./cli.js" });
  assert.deepEqual(pkg.engines, { node: ">=22.12" });
  assert.equal(pkg.type, "module");
});

Deno.test("every npm import of deno.json is a dependency at the same pinned version", () => {
  const deps = npmDependencies(denoJson.imports);
  for (const target of Object.values(denoJson.imports as Record<string, string>)) {
    if (!target.startsWith("npm:")) continue;
    const [, name, version] = /^npm:(@?[^@]+)@(.+)$/.exec(target)!;
    assert.equal(deps[name], version, name);
    assert.match(version, /^\d+\.\d+\.\d+$/, `${name} is pinned`);
  }
  assert.deepEqual(npmDependencies({ a: "npm:@scope/pkg@1.2.3/sub", b: "./local.ts" }), { "@scope/pkg": "1.2.3" });
});
