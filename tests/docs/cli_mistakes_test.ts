/** Runs every row of the table of mistakes in docs/cli.md and checks the line and exit status it documents. */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, runCli } from "../helpers/cli.ts";

const PAGE = new URL("../../docs/cli.md", import.meta.url);

interface Mistake {
  mistake: string;
  args: string[];
  line: string;
  exit: number;
}

/** A command line split as a shell splits it (double quotes group words). */
function shellWords(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
}

/** The table's rows: the section "Mistakes and what they print", up to the next heading. */
async function mistakes(): Promise<Mistake[]> {
  const page = await readFile(PAGE, "utf8");
  const section = page.split("\n## Mistakes and what they print\n")[1]?.split("\n## ")[0];
  assert.ok(section, 'docs/cli.md has no section "Mistakes and what they print"');
  const rows = section.split("\n").filter((line) => line.startsWith("| ") && line.includes("`netweir "));
  return rows.map((row) => {
    const cells = row.slice(2, -2).split(" | ").map((cell) => cell.trim());
    assert.equal(cells.length, 4, row);
    const [mistake, command, line, exit] = cells;
    const words = shellWords(command.replace(/^`|`$/g, ""));
    assert.equal(words[0], "netweir", row);
    return { mistake, args: words.slice(1), line: line.replace(/^`|`$/g, ""), exit: Number(exit) };
  });
}

Deno.test("every mistake in docs/cli.md prints its line and exits with its status, touching nothing", async () => {
  const rows = await mistakes();
  assert.ok(rows.length >= 15, `only ${rows.length} rows found`);
  for (const row of rows) {
    // Run in an empty directory, so nothing the command might write could hide among other files; paths into the
    // repository (examples/, tests/) point at this checkout.
    const dir = await mkdtemp(join(tmpdir(), "netweir-mistake-"));
    try {
      const args = row.args.map((arg) => /^(examples|tests)\//.test(arg) ? `${REPO_ROOT}/${arg}` : arg);
      const result = await runCli(args, { cwd: dir });
      // A line naming a file of the checkout names it as the table writes it, relative to the checkout.
      assert.equal(result.stderr.replaceAll(`${REPO_ROOT}/`, ""), `${row.line}\n`, row.mistake);
      assert.equal(result.code, row.exit, `${row.mistake}: ${result.stderr}`);
      assert.deepEqual(await readdir(dir), [], `${row.mistake}: left files behind`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
});
