/** The npm package's .d.ts as a TypeScript user meets them: strict, target es2022, no skipLibCheck. */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { installBuiltPackage, runCommand } from "../helpers/node_package.ts";

const SPIDER = `import { type Page, Queue, Spider } from "netweir";

export class Typed extends Spider {
  override parse(page: Page) {
    return { title: page.css("h1").text(), url: page.url };
  }
}

export async function push(url: string): Promise<void> {
  await using queue = new Queue("redis://127.0.0.1:6379/0", "Typed");
  await queue.push([url]);
}
`;

Deno.test("the shipped .d.ts type-check for a user on target es2022 without skipLibCheck, with and without Node's types", async () => {
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "spider.ts"), SPIDER);
    for (const types of [undefined, []]) {
      const compilerOptions = {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        ...(types === undefined ? {} : { types }),
      };
      await writeFile(join(pkg.dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["spider.ts"] }));
      const { command, args } = runtime.selfCommand("npm:typescript@5.9.3/tsc");
      const tsc = await runCommand(command, [...args, "-p", "tsconfig.json"], { cwd: pkg.dir });
      assert.equal(tsc.code, 0, `types ${JSON.stringify(types)}:\n${tsc.stdout}${tsc.stderr}`);
    }
  } finally {
    await pkg.remove();
  }
});
