/**
 * `netweir shell` end to end (issue 25, item 1): the prompt driven through a real pseudo-terminal (tmux) against the
 * fixture shop on 127.0.0.1, and its one-shot `-c` form.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { CLI_PATH } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { Terminal } from "../helpers/tmux.ts";
import { fixture, runCli, withTempDir } from "./_run.ts";

const SPIDER = fixture("devloop_spider.ts");
/** The prompt, last on the screen (the screen is read without its trailing spaces). */
const PROMPT_AT_END = /netweir>$/;

function netweirArgv(args: string[]): string[] {
  const self = runtime.selfCommand(CLI_PATH);
  return [self.command, ...self.args, ...args];
}

/** Types one line and returns what it printed, once the prompt is back. */
async function ask(term: Terminal, line: string): Promise<string> {
  const prompts = (text: string) => text.split("netweir>").length;
  const before = prompts(await term.screen());
  await term.type(line);
  const screen = await term.waitFor({ test: (text: string) => prompts(text) > before && PROMPT_AT_END.test(text) });
  const asked = screen.lastIndexOf(`netweir> ${line}`);
  return screen.slice(asked + `netweir> ${line}`.length, screen.lastIndexOf("netweir>")).trim();
}

Deno.test("shell in a terminal: page, selections shown as their matches, fetch() and the spider's middlewares", async () => {
  const site = await startFixtureSite({ books: 3 });
  // No desktop: view() must only print its path.
  const term = await Terminal.start(
    netweirArgv(["shell", `${site.url}shop/`, "--spider-file", SPIDER]),
    { env: { DISPLAY: "", WAYLAND_DISPLAY: "", BROWSER: "" } },
  );
  try {
    const banner = await term.waitFor(PROMPT_AT_END);
    assert.match(banner, new RegExp(`page +<200 ${site.url}shop/>`));
    assert.match(banner, /spider +the spider \(DevShop\)/);

    const links = await ask(term, 'page.css("article.product_pod h3 a")');
    assert.match(links, /^Selection \(3 matches\)\n {2}\[0\] <a href="catalogue\/[^"]+\/index\.html" title="[^"]+">/);

    const hrefs = await ask(term, 'const hrefs = page.css("h3 a::attr(href)")');
    assert.match(hrefs, /\[2\] "catalogue\/[^"]+\/index\.html"/);
    assert.equal(await ask(term, "hrefs.length"), "3");

    const fetched = await ask(term, `fetch("${site.url}echo")`);
    assert.equal(fetched, `<200 ${site.url}echo>`);
    const headers = await ask(term, 'JSON.parse(page.text).headers["x-devloop"] + " " + page.request.url');
    assert.match(headers, new RegExp(`'tagged ${site.url}echo'`));

    const viewed = await ask(term, "view(page)");
    assert.match(viewed, /'\/.*netweir-view-[^']+\.html'/);

    assert.equal(await ask(term, "nothing.here"), "ReferenceError: nothing is not defined");
    assert.match(
      await ask(term, `fetch("http://127.0.0.1:1/")`),
      /^Error: fetching http:\/\/127\.0\.0\.1:1\/ failed: /,
    );

    // Ctrl-C drops the line being typed and gives the prompt back.
    await term.type('page.css("h1', false);
    await term.press("C-c");
    assert.equal(await ask(term, "6 * 7"), "42");

    await term.press("C-d");
    assert.equal(await term.exited(), 0);
  } finally {
    await term.close();
    await site.close();
  }
});

Deno.test("shell FILE reads a local HTML page; -c runs one line and prints its value", async () => {
  await withTempDir(async (dir) => {
    const file = join(dir, "page.html");
    await writeFile(file, `<html><body><h1>Saved <b>copy</b></h1><a href="/x">x</a></body></html>`);
    const result = await runCli(["shell", file, "-c", 'page.css("h1").text() + " " + page.css("a").attr("href")']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "'Saved copy /x'\n");
    const missing = await runCli(["shell", join(dir, "nothere.html")]);
    assert.equal(missing.code, 2);
    assert.equal(
      missing.stderr,
      `netweir: no such file: ${join(dir, "nothere.html")} (a URL needs its scheme, as http://)\n`,
    );
  });
});

Deno.test("shell exits 1 with one line when its URL cannot be fetched", async () => {
  const result = await runCli(["shell", "http://127.0.0.1:1/", "-s", "retries=0", "-c", "page"]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /^netweir: fetching http:\/\/127\.0\.0\.1:1\/ failed: connection refused[^\n]*\n$/);
});
