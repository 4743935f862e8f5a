/**
 * docs/developing.md runs as written: its ```sh blocks, in page order, as one shell script (with `netweir` this
 * checkout's CLI), and its named ```ts blocks written to their files at the point where the page shows them, against
 * the example shop (examples/site) served on 127.0.0.1 in place of the page's http://127.0.0.1:8000/.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveDirectory } from "../../scripts/demo.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { runCommand } from "../helpers/command.ts";
import { CLI_PATH, REPO_ROOT } from "../helpers/cli.ts";

const PAGE = join(REPO_ROOT, "docs", "developing.md");
const PAGE_SHOP = "http://127.0.0.1:8000/";

/** A word for sh, single-quoted. */
function quoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The page as one script: each sh line echoed then run (set -e stops at the first that fails), each file written. */
function script(page: string, shop: string): { text: string; commands: number } {
  const self = runtime.selfCommand(CLI_PATH);
  const lines = ["set -e", `netweir() { ${[self.command, ...self.args].map(quoted).join(" ")} "$@"; }`];
  let commands = 0;
  for (const block of page.matchAll(/^```(sh|ts)\n([\s\S]*?)^```$/gm)) {
    const body = block[2].replaceAll(PAGE_SHOP, shop);
    if (block[1] === "ts") {
      const file = /^\/\/ ([\w./-]+\.ts)\n/.exec(body)?.[1];
      if (file) lines.push(`cat > ${quoted(file)} <<'NETWEIR_DOC_EOF'`, body.trimEnd(), "NETWEIR_DOC_EOF");
      continue;
    }
    for (const line of body.split("\n").filter((line) => line.trim() !== "")) {
      // The pipes in the page end in head or grep -c, whose status is the one that counts.
      lines.push(`echo ${quoted(`+ ${line}`)} >&2`, line);
      commands++;
    }
  }
  return { text: lines.join("\n") + "\n", commands };
}

Deno.test({
  name: "every command in docs/developing.md runs as written and succeeds",
  ignore: runtime.name !== "deno",
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-developing-"));
  const shop = await serveDirectory(join(REPO_ROOT, "examples", "site"));
  try {
    const { text, commands } = script(await readFile(PAGE, "utf8"), shop.url);
    assert.ok(commands >= 15, `only ${commands} commands found`);
    // No desktop: view() and the shell must not try to open a browser.
    const env = { ...runtime.environment(), DISPLAY: "", WAYLAND_DISPLAY: "", BROWSER: "" };
    const ran = await runCommand("sh", ["-c", text], { cwd: dir, env });
    assert.equal(ran.code, 0, `the page's commands stopped:\n${ran.stderr}`);
    // What the page says they print.
    assert.match(ran.stdout, /^2 contracts: 2 passed, 0 failed$/m);
    assert.match(ran.stdout, /^< 200$/m);
    assert.match(ran.stdout, /^ {4}\{"title":"The Paper Compass","price":"£44\.35"\}$/m);
    assert.match(ran.stdout, /^per_domain +2 {2}\(-s\)$/m);
    // The crawl's titles on standard output, then the count of its Crawled lines (its log went to crawl.log).
    assert.match(ran.stdout, /^The Paper Compass\n[^]*^\d+$/m);
  } finally {
    await shop.close();
    await rm(dir, { recursive: true, force: true });
  }
});
