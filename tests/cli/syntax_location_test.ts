/**
 * Where a spider file's syntax error is, as each runtime reports it: Deno in the error's message, Node 22 at the
 * head of the stack of a TypeScript module it strips.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { syntaxErrorPlace } from "../../src/load/syntax_location.ts";
import { runCommand } from "../helpers/command.ts";
import { NODE22 } from "../helpers/node_package.ts";
import { withTempDir } from "./_run.ts";

/** A module whose line 3 has a ";" where a "," or "}" belongs, at column 36. */
const BROKEN = `export const a = 1;
export function f(page: string) {
  return { url: page, other: page ; };
}
`;

const PLACE = { file: "broken.ts", line: 3, column: 35 };

Deno.test("on Deno, a syntax error's place is read from the error's message, relative to the directory", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "broken.ts"), BROKEN);
    const error = await import(pathToFileURL(join(dir, "broken.ts")).href).then(() => undefined, (error) => error);
    assert.deepEqual(syntaxErrorPlace(error, dir), PLACE);
    assert.deepEqual(syntaxErrorPlace(error, "/elsewhere"), { ...PLACE, file: join(dir, "broken.ts") });
  });
});

Deno.test("on Node 22, a TypeScript module's syntax error is placed by the head of its stack", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "broken.ts"), BROKEN);
    const script = join(dir, "place.mts");
    const module = new URL("../../src/load/syntax_location.ts", import.meta.url).href;
    await writeFile(
      script,
      `import { syntaxErrorPlace } from ${JSON.stringify(module)};
const error = await import("./broken.ts").then(() => undefined, (error) => error);
console.log(JSON.stringify(syntaxErrorPlace(error, ${JSON.stringify(dir)})));
`,
    );
    const ran = await runCommand(NODE22, ["--experimental-strip-types", "--no-warnings", script], { cwd: dir });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), PLACE);
  });
});

Deno.test("on Node 22, a JavaScript module's syntax error, which says no place, is placed by parsing it again", async () => {
  await withTempDir(async (dir) => {
    await writeFile(join(dir, "broken.mjs"), BROKEN.replace("(page: string)", "(page)"));
    const script = join(dir, "place.mts");
    const place = new URL("../../src/load/syntax_location.ts", import.meta.url).href;
    const parse = new URL("../../src/runtime/node_syntax.ts", import.meta.url).href;
    await writeFile(
      script,
      `import { syntaxErrorPlace } from ${JSON.stringify(place)};
import { nodeModuleSyntaxError } from ${JSON.stringify(parse)};
const path = ${JSON.stringify(join(dir, "broken.mjs"))};
const error = await import(path).then(() => undefined, (error) => error);
const again = nodeModuleSyntaxError(path);
console.log(JSON.stringify([error.name, syntaxErrorPlace(error, ${
        JSON.stringify(dir)
      }) ?? null, syntaxErrorPlace(again, ${JSON.stringify(dir)})]));
`,
    );
    const ran = await runCommand(NODE22, ["--experimental-strip-types", "--no-warnings", script], { cwd: dir });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), ["SyntaxError", null, { ...PLACE, file: "broken.mjs" }]);
  });
});

Deno.test("an error that is no syntax error, or says no place, has no place", () => {
  assert.equal(syntaxErrorPlace(new Error("broken on purpose"), "/"), undefined);
  assert.equal(syntaxErrorPlace(new SyntaxError("Unexpected token ';'"), "/"), undefined);
  assert.equal(syntaxErrorPlace("not an error", "/"), undefined);
});
