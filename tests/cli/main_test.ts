/** The `netweir` command line as a whole, run as a separate process: version, help, and argument errors. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { runtime } from "../../src/runtime/mod.ts";
import { VERSION } from "../../src/version.ts";
import { fixture, runCli } from "./_run.ts";

async function denoJsonVersion(): Promise<string> {
  const text = await readFile(new URL("../../deno.json", import.meta.url), "utf8");
  return JSON.parse(text).version;
}

Deno.test("src/version.ts holds the version deno.json declares", async () => {
  assert.equal(VERSION, await denoJsonVersion());
});

Deno.test("netweir version prints the version from deno.json and the runtime it runs on", async () => {
  const result = await runCli(["version"]);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, `netweir ${await denoJsonVersion()}\n${runtime.name} ${runtime.version}\n`);
  assert.match(result.stdout, /\n(deno|node) \d+\.\d+\.\d+\n$/);
  assert.equal(result.stderr, "");
});

Deno.test("netweir --version prints what netweir version prints", async () => {
  const [option, command] = await Promise.all([runCli(["--version"]), runCli(["version"])]);
  assert.equal(option.code, 0);
  assert.equal(option.stdout, command.stdout);
});

Deno.test("netweir --help lists the commands and exits 0", async () => {
  const result = await runCli(["--help"]);
  assert.equal(result.code, 0);
  for (const command of ["crawl", "list", "startproject", "version"]) {
    assert.match(result.stdout, new RegExp(`^  ${command} `, "m"));
  }
  assert.doesNotMatch(result.stdout, /_inspect/, "the hidden command stays hidden");
  assert.equal(result.stderr, "");
});

Deno.test("--help after every command prints that command's help and exits 0", async () => {
  const expected: Record<string, RegExp> = {
    crawl: /-O, --overwrite-output <path>[\s\S]*--queue-key <key>[\s\S]*--log-level <level>/,
    list: /--json[\s\S]*\{"name", "class", "file"\}[\s\S]*\{"file", "error"\}/,
    startproject: /Usage: netweir startproject \[options\] <name>/,
    version: /Usage: netweir version/,
  };
  for (const [command, pattern] of Object.entries(expected)) {
    const result = await runCli([command, "--help"]);
    assert.equal(result.code, 0, command);
    assert.match(result.stdout, pattern, command);
  }
});

Deno.test("netweir help COMMAND prints the command's help and exits 0", async () => {
  const result = await runCli(["help", "list"]);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /Usage: netweir list/);
});

Deno.test("an unknown command exits 2 with one line on stderr", async () => {
  const result = await runCli(["fly"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, "netweir: unknown command 'fly'\n");
  assert.equal(result.stdout, "");
});

Deno.test("a misspelt command gets a suggestion on the same line", async () => {
  const result = await runCli(["lsit", "spiders"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, "netweir: unknown command 'lsit' (Did you mean list?)\n");
});

Deno.test("an unknown option exits 2 with one line on stderr", async () => {
  const result = await runCli(["list", "--colour", "spiders"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, "netweir: unknown option '--colour'\n");
});

Deno.test("a missing argument exits 2 with one line on stderr", async () => {
  const result = await runCli(["crawl"]);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, "netweir: missing required argument 'file'\n");
});

Deno.test("a setting without '=' is refused before any crawl starts, exit 2", async () => {
  const result = await runCli(["crawl", "spider.ts", "-s", "max_items"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^netweir: .*'max_items' is invalid\. expected KEY=VALUE\n$/);
});

Deno.test("netweir without a command prints the help on stderr and exits 2", async () => {
  const result = await runCli([]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^Usage: netweir/);
  assert.equal(result.stdout, "");
});

Deno.test("crawl of a spider file that cannot be used exits 2 with one line saying why", async () => {
  const cwd = fixture("");
  const cases: Array<[string[], string]> = [
    [["crawl", "missing.ts"], "netweir: no such file: missing.ts\n"],
    [["crawl", "throws.ts"], "netweir: throws.ts: broken on purpose\n"],
    [["crawl", "no_spider.ts"], "netweir: no_spider.ts exports no Spider subclass\n"],
    [
      ["crawl", "two_spiders.ts"],
      "netweir: two_spiders.ts has several spiders (Books, quotes); choose one with --spider\n",
    ],
    [
      ["crawl", "two_spiders.ts", "--spider", "news"],
      "netweir: no spider named news in two_spiders.ts (found: Books, quotes)\n",
    ],
  ];
  for (const [argv, stderr] of cases) {
    const result = await runCli(argv, { cwd });
    assert.equal(result.code, 2, argv.join(" "));
    assert.equal(result.stderr, stderr);
  }
});
