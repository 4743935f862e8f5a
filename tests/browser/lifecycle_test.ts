/**
 * Chromium's life: started for the first rendered page, started again when it dies (only the pages it was
 * rendering are tried again), and never left running after its crawl, however the crawl ends.
 */
import assert from "node:assert/strict";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Request, Spider } from "../../mod.ts";
import { runtime } from "../../src/runtime/mod.ts";
import { runCli, startCli } from "../helpers/cli.ts";
import { sendSignal } from "../helpers/signal.ts";
import { chromiumOf, descendants, markedBrowser, markedChromium, processes, waitGone } from "../helpers/chromium.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { withTempDir } from "../cli/_run.ts";
import { crawl } from "../helpers/crawl_in_process.ts";
import { JsShop } from "./fixtures/js_shop_spider.ts";
import { sleep, waitUntil } from "../helpers/wait.ts";

const SPIDER = new URL("./fixtures/js_shop_spider.ts", import.meta.url).pathname;

async function chromiumUnder(pid: number) {
  return chromiumOf(descendants(await processes(), pid));
}

const expectedNames = (count: number) => Array.from({ length: count }, (_, i) => `Product ${i + 1}`).sort();

Deno.test("Chromium killed mid-crawl is started again, and the crawl finishes with nothing missing", async () => {
  const site = await startJsSite({ products: 60, perPage: 10 });
  try {
    await withTempDir(async (dir) => {
      const mark = crypto.randomUUID();
      const spider = new JsShop();
      spider.site = site.url;
      spider.slow = "0.4";
      const running = crawl(spider, { browserPath: await markedBrowser(dir, mark) });
      // The browser process itself: the one of this crawl's Chromium processes whose parent is this process.
      const browser = await waitUntil("Chromium runs", async () => {
        const found = (await markedChromium(mark)).find((process) => process.ppid === runtime.pid);
        return found && site.hits("/list/2") > 0 ? found : undefined;
      });
      await sendSignal(browser.pid, "SIGKILL");
      const { items, stats } = await running;
      assert.deepEqual(items.map((item) => item.name).sort(), expectedNames(60));
      assert.ok((stats["browser.restarts"] as number) >= 1, JSON.stringify(stats));
      assert.equal(stats.errors, 0);
      const left = (await markedChromium(mark)).map((process) => process.pid);
      assert.deepEqual(await waitGone(left, 5000), [], "and the second Chromium is closed at the end");
    });
  } finally {
    await site.close();
  }
});

Deno.test("a crawl killed with SIGKILL leaves no Chromium behind, by parent or by process group", async () => {
  const site = await startJsSite({ products: 200, perPage: 10 });
  try {
    await withTempDir(async (dir) => {
      // Marked, since other test files' crawls (some SIGKILLed on purpose) run at once in this process group: their
      // Chromium processes, reparented for a moment while they exit, must not be taken for this crawl's.
      const mark = crypto.randomUUID();
      const browserPath = await markedBrowser(dir, mark);
      const cli = startCli([
        "crawl",
        SPIDER,
        "-a",
        `site=${site.url}`,
        "-a",
        "slow=1",
        "-O",
        join(dir, "items.jsonl"),
        "-s",
        `browser_path=${browserPath}`,
      ]);
      const browsers = await waitUntil("the crawl's Chromium runs", async () => {
        const found = await chromiumUnder(cli.pid);
        return found.length >= 2 ? found : undefined;
      });
      const group = (await processes()).find((process) => process.pid === cli.pid)!.pgid;
      // Chromium's crash reporter leaves the group on purpose (a double fork and setsid, after which init is its
      // parent and the mark below finds it): caught in that moment, a process of it is the crawl's descendant in a
      // group of its own for a few milliseconds. So the processes outside the group are looked at again while they
      // are any; one that stays under the crawl outside its group fails the test.
      let outside = browsers.filter((process) => process.pgid !== group);
      for (let look = 0; look < 20 && outside.length > 0; look++) {
        await sleep(100);
        outside = (await chromiumUnder(cli.pid)).filter((process) => process.pgid !== group);
      }
      assert.deepEqual(outside, [], `Chromium is in the crawl's process group ${group}`);
      await cli.kill("SIGKILL");
      await cli.wait();
      assert.deepEqual(await waitGone(browsers.map((process) => process.pid)), [], "no Chromium process is left");
      // Every process this crawl's Chromium started, under the crawl or reparented, in its group or not: by the mark.
      const marked = (await markedChromium(mark)).map((process) => process.pid);
      assert.deepEqual(await waitGone(marked), [], "no process of this crawl's Chromium is left anywhere");
    });
  } finally {
    await site.close();
  }
});

Deno.test("SIGTERM stops a rendering crawl cleanly: exit 143, feeds closed, Chromium gone", async () => {
  const site = await startJsSite({ products: 200, perPage: 10 });
  try {
    await withTempDir(async (dir) => {
      const out = join(dir, "items.json");
      const cli = startCli(["crawl", SPIDER, "-a", `site=${site.url}`, "-a", "slow=1", "-O", out]);
      // Guards, not timings: on a loaded machine (four test files at once on two cores) starting the crawl and its
      // Chromium once took over the 30 s waitUntil gives by default.
      const browsers = await waitUntil("the crawl's Chromium runs", async () => {
        const found = await chromiumUnder(cli.pid);
        return found.length >= 2 && site.hits("/product/1") > 0 ? found : undefined;
      }, 120_000);
      await cli.kill("SIGTERM");
      const result = await cli.wait();
      assert.equal(result.code, 143, result.stderr);
      assert.ok(Array.isArray(JSON.parse(await readFile(out, "utf8"))), "the JSON feed is whole");
      assert.deepEqual(await waitGone(browsers.map((process) => process.pid), 10_000), []);
    });
  } finally {
    await site.close();
  }
});

Deno.test("no browser at start: exit 2 with a line naming browser_path, before any output is touched", async () => {
  await withTempDir(async (dir) => {
    const out = join(dir, "items.jsonl");
    await writeFile(out, '{"kept":true}\n');
    const result = await runCli(["crawl", SPIDER, "-a", "site=http://127.0.0.1:9/", "-O", out], {
      env: { PATH: join(dir, "empty") },
    });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^netweir: rendering needs Chrome or Chromium: .* set browser_path\n$/);
    assert.equal(await readFile(out, "utf8"), '{"kept":true}\n');
  });
});

Deno.test("a rendered request with no browser to render it fails with that message, counted", async () => {
  const site = await startJsSite();
  try {
    class Late extends Spider {
      override async *start() {
        yield new Request({ url: site.url + "data", render: true });
      }
      override parse() {}
    }
    const { stats, lines } = await crawl(new Late(), { browserPath: "/nonexistent/no-such-browser" });
    assert.equal(stats.errors, 1);
    assert.equal(stats.errors_browser_missing, 1);
    assert.ok(lines.some((line) => /browser_path .*no-such-browser is not an executable file/.test(line)));
    assert.equal(site.hits("/data"), 0);
  } finally {
    await site.close();
  }
});

Deno.test("a browser that exits at start fails its pages once each, saying so with its output, not retried", async () => {
  const site = await startJsSite();
  try {
    await withTempDir(async (dir) => {
      const browserPath = join(dir, "broken-chromium");
      await writeFile(browserPath, "#!/bin/sh\necho 'cannot open display: nowhere' >&2\nexit 3\n");
      await chmod(browserPath, 0o755);
      const failures: string[] = [];
      class Two extends Spider {
        override async *start() {
          for (const path of ["data", "gone"]) {
            yield new Request({ url: site.url + path, render: true, errback: this.failed });
          }
        }
        override parse() {}
        failed(failure: { error: Error }) {
          failures.push(failure.error.message);
        }
      }
      const { stats } = await crawl(new Two(), { browserPath, retries: 2 });
      assert.equal(failures.length, 2);
      for (const message of failures) {
        assert.match(message, /^the browser .*broken-chromium exited at start \(exit status 3\): cannot open display/);
      }
      assert.equal(stats.retries ?? 0, 0, "it would only exit again");
    });
  } finally {
    await site.close();
  }
});

Deno.test("the profile a SIGKILLed crawl's Chromium left behind is removed by the next crawl, and only that one", async () => {
  const site = await startJsSite({ products: 200, perPage: 10 });
  try {
    await withTempDir(async (dir) => {
      const env = { TMPDIR: join(dir, "tmp") };
      await mkdir(env.TMPDIR);
      // Profile directories wherever a crawl may put them in TMPDIR: beside each other, or in a folder of their own.
      const profiles = async () => {
        const top = (await readdir(env.TMPDIR)).filter((name) => name.startsWith("netweir-chromium-"));
        const inside = await readdir(join(env.TMPDIR, "netweir-chromium")).catch(() => [] as string[]);
        return [...top, ...inside.filter((name) => !name.endsWith(".lock"))];
      };
      const killed = startCli(["crawl", SPIDER, "-a", `site=${site.url}`, "-a", "slow=1", "-O", join(dir, "a.jsonl")], {
        env,
      });
      const browsers = await waitUntil("the crawl's Chromium runs", async () => {
        const found = await chromiumUnder(killed.pid);
        return found.length >= 2 ? found : undefined;
      });
      await killed.kill("SIGKILL");
      await killed.wait();
      assert.deepEqual(await waitGone(browsers.map((process) => process.pid)), []);
      const left = await profiles();
      assert.equal(left.length, 1, "the killed crawl's profile is still there");

      // A crawl running meanwhile keeps its own profile while it runs.
      const running = startCli(
        ["crawl", SPIDER, "-a", `site=${site.url}`, "-a", "slow=1", "-O", join(dir, "b.jsonl")],
        {
          env,
        },
      );
      await waitUntil("the second crawl's Chromium runs", async () => (await chromiumUnder(running.pid)).length >= 2);
      const during = await profiles();
      assert.ok(!during.includes(left[0]), "the forgotten profile is gone once a browser starts");
      assert.equal(during.length, 1, "the running crawl's own profile stays");
      await running.kill("SIGTERM");
      await running.wait();
      assert.deepEqual(await profiles(), [], "and a crawl that ends removes its own");
    });
  } finally {
    await site.close();
  }
});
