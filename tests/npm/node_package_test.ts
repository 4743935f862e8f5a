import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import process from "node:process";
import { delimiter, dirname, join } from "node:path";
import { runtime } from "../../src/runtime/mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startJsSite } from "../helpers/js_site.ts";
import { installBuiltPackage, NODE22, type Ran, runCommand } from "../helpers/node_package.ts";
import { startRedis } from "../helpers/redis.ts";
import { shopSpiderMjs } from "../helpers/npm_spiders.ts";

const MJS_SPIDER = shopSpiderMjs();

const TS_SPIDER = `import { type Page, Request, Spider } from "netweir";

export class TypedShop extends Spider {
  site: string = "http://127.0.0.1:1/";
  override async *start(): AsyncGenerator<Request> {
    yield new Request({ url: this.site });
  }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) {
      yield page.follow(href, { callback: this.parseBook });
    }
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  parseBook(page: Page): { title: string; url: string } {
    return { title: page.css("h1").text(), url: page.url };
  }
}
`;

Deno.test("the npm package, packed and installed, runs on Node 22: version, list, crawl of .mjs and .ts spiders", async () => {
  const site = await startFixtureSite({ books: 50 });
  const pkg = await installBuiltPackage();
  try {
    const version = await pkg.netweir(["version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^netweir 0\.4\.0\nnode 22\.\d+\.\d+\n$/);

    await writeFile(join(pkg.dir, "shop.mjs"), MJS_SPIDER);
    await writeFile(join(pkg.dir, "typed.ts"), TS_SPIDER);
    const list = await pkg.netweir(["list", "."]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout, "Shop\tshop.mjs\nTypedShop\ttyped.ts\n");

    for (const file of ["shop.mjs", "typed.ts"]) {
      const out = join(pkg.dir, `${file}.jsonl`);
      const crawl = await pkg.netweir(["crawl", file, "-a", `site=${site.url}shop/`, "-O", out]);
      assert.equal(crawl.code, 0, crawl.stderr);
      const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
      assert.equal(items.length, 50, file);
      assert.equal(new Set(items.map((item) => item.url)).size, 50);
    }

    const bad = await pkg.netweir(["crawl", "shop.mjs", "-s", "concurrency=0"]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "netweir: setting concurrency must be at least 1\n");

    // The netweir command keeps Node's compile cache, in the temporary directory (not NODE_COMPILE_CACHE's doing:
    // left unset here, Node would keep none); the library alone does not.
    const tmp = join(pkg.dir, "tmp");
    await mkdir(tmp);
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    delete env.NODE_COMPILE_CACHE;
    env.TMPDIR = tmp;
    const cached = await runCommand(NODE22, [join(pkg.dir, "node_modules", "netweir", "cli.js"), "list", "."], {
      cwd: pkg.dir,
      env,
    });
    assert.equal(cached.code, 0, cached.stderr);
    assert.ok((await readdir(join(tmp, "node-compile-cache"), { recursive: true })).length > 0, "no compile cache");
    const library = join(pkg.dir, "library.mjs");
    await writeFile(library, `import { Spider } from "netweir";\nconsole.log(typeof Spider);\n`);
    await rm(join(tmp, "node-compile-cache"), { recursive: true, force: true });
    const imported = await runCommand(NODE22, [library], { cwd: pkg.dir, env });
    assert.equal(imported.stdout, "function\n", imported.stderr);
    assert.ok(!existsSync(join(tmp, "node-compile-cache")), "importing netweir turned on the compile cache");
  } finally {
    await pkg.remove();
    await site.close();
  }
});

/** A .ts spider that says in its item whether Node had loaded amaro, its TypeScript stripper, by the time it ran. */
const STRIPPED_SPIDER = (label: string) =>
  `import { Request, Spider } from "netweir";

declare const process: { moduleLoadList: string[] };
const amaro: boolean = process.moduleLoadList.some((name: string) => name.includes("amaro"));

export class Typed extends Spider {
  site: string = "http://127.0.0.1:1/";
  override async *start(): AsyncGenerator<Request> {
    yield new Request({ url: this.site });
  }
  override *parse(): Generator<{ label: string; amaro: boolean }> {
    yield { label: ${JSON.stringify(label)}, amaro };
  }
}
`;

Deno.test("on Node 22 a .ts spider's stripped JavaScript is kept: the next crawl loads no stripper, an edited one is stripped again", async () => {
  const site = await startFixtureSite({ books: 1 });
  const pkg = await installBuiltPackage();
  try {
    const spider = join(pkg.dir, "typed.ts");
    const cache = join(pkg.dir, ".cache", "netweir", "typescript");
    const crawl = async () => {
      const out = join(pkg.dir, "out.jsonl");
      const ran = await pkg.netweir(["crawl", "typed.ts", "-a", `site=${site.url}`, "-O", out]);
      assert.equal(ran.code, 0, ran.stderr);
      assert.doesNotMatch(ran.stderr, /ExperimentalWarning/);
      return JSON.parse(await readFile(out, "utf8"));
    };
    await writeFile(spider, STRIPPED_SPIDER("first"));
    assert.deepEqual(await crawl(), { label: "first", amaro: true });
    assert.equal((await readdir(cache, { recursive: true })).filter((name) => name.endsWith(".js")).length, 1);
    assert.deepEqual(await crawl(), { label: "first", amaro: false });
    await writeFile(spider, STRIPPED_SPIDER("edited"));
    assert.deepEqual(await crawl(), { label: "edited", amaro: true });
    assert.deepEqual(await crawl(), { label: "edited", amaro: false });

    // A type error that stripping refuses reads the same with the cache as without it.
    await writeFile(
      join(pkg.dir, "enum.ts"),
      `import { Spider } from "netweir";\nenum Q { A }\nexport class E extends Spider {}\n`,
    );
    const refused = await pkg.netweir(["crawl", "enum.ts"]);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, "netweir: enum.ts: TypeScript enum is not supported in strip-only mode\n");

    // NODE_DISABLE_COMPILE_CACHE=1 turns it off with Node's compile cache.
    await rm(cache, { recursive: true, force: true });
    const env = { ...process.env, XDG_CACHE_HOME: join(pkg.dir, ".cache"), NODE_DISABLE_COMPILE_CACHE: "1" };
    const bin = join(pkg.dir, "node_modules", "netweir", "cli.js");
    const off = await runCommand(NODE22, [bin, "crawl", "typed.ts", "-a", `site=${site.url}`, "-O", "off.jsonl"], {
      cwd: pkg.dir,
      env,
    });
    assert.equal(off.code, 0, off.stderr);
    assert.equal(JSON.parse(await readFile(join(pkg.dir, "off.jsonl"), "utf8")).amaro, true);
    assert.ok(!existsSync(cache), "the cache was written with NODE_DISABLE_COMPILE_CACHE=1");
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("on Node 22 a checkpoint carries on, deltafetch and the cache remember, and WARC and HAR are written", async () => {
  const site = await startFixtureSite({ books: 30 });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "shop.mjs"), MJS_SPIDER);
    const out = join(pkg.dir, "items.jsonl");
    const args = (maxItems: number) => [
      "crawl",
      "shop.mjs",
      "-a",
      `site=${site.url}shop/`,
      "-o",
      out,
      ...["checkpoint=state", "deltafetch=state/delta.db", "cache=cache", "warc=crawl.warc.gz", "har=crawl.har"]
        .flatMap((setting) => ["-s", setting]),
      "-s",
      `max_items=${maxItems}`,
    ];
    const first = await pkg.netweir(args(10));
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stderr, /ExperimentalWarning/, "Node's SQLite warning reached the user");
    const second = await pkg.netweir(args(1000));
    assert.equal(second.code, 0, second.stderr);
    const urls = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line).url);
    assert.equal(urls.length, 30, "the checkpoint carried on to every book");
    assert.equal(new Set(urls).size, 30, "no book twice");
    const har = JSON.parse(await readFile(join(pkg.dir, "crawl.har"), "utf8"));
    assert.ok(har.log.entries.length > 0, "the second run's fetches are in its HAR");
    assert.ok((await readFile(join(pkg.dir, "crawl.warc.gz"))).byteLength > 0);
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("on Node 22 callbacks run in worker threads with workers=2; one that ends its thread loses only its page", async () => {
  const site = await startFixtureSite({ books: 25 });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(
      join(pkg.dir, "threads.mjs"),
      `import { Request, Spider } from "netweir";
import { isMainThread } from "node:worker_threads";
export class Threads extends Spider {
  site = "";
  async *start() { yield new Request({ url: this.site }); }
  *parse(page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) yield page.follow(href, { callback: this.parseBook });
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  exitOn = "";
  parseBook(page) {
    // process.exit in a worker thread ends that thread, without an error event: the pool learns which page it was on
    // from the worker's count of pages finished, not from a message.
    if (this.exitOn && page.url.includes("_" + this.exitOn + "/")) process.exit(3);
    // A slow callback, so that the books fetched meanwhile wait and go to the worker in batches, book 7 within one.
    if (this.exitOn) for (const until = Date.now() + 30; Date.now() < until;);
    return { url: page.url, mainThread: isMainThread };
  }
}
`,
    );
    const out = join(pkg.dir, "threads.jsonl");
    const crawl = await pkg.netweir([
      "crawl",
      "threads.mjs",
      "-a",
      `site=${site.url}shop/`,
      "-O",
      out,
      "-s",
      "workers=2",
    ]);
    assert.equal(crawl.code, 0, crawl.stderr);
    const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(items.length, 25);
    assert.ok(items.every((item) => item.mainThread === false), "a callback ran on the main thread");

    // Book 7's callback ends its worker thread: book 7 alone fails; the books its worker had finished before it, whose
    // items were still held for the worker's next message, are run again, not lost or blamed.
    const stats = join(pkg.dir, "exit-stats.json");
    const exiting = await pkg.netweir([
      "crawl",
      "threads.mjs",
      "-a",
      `site=${site.url}shop/`,
      "-a",
      "exitOn=7",
      "-O",
      out,
      "--stats-file",
      stats,
      "-s",
      "workers=1",
    ]);
    assert.equal(exiting.code, 0, exiting.stderr);
    assert.match(exiting.stderr, /a callback worker died \(the worker ended \(exit code 3\)\); starting another/);
    const urls = (await readFile(out, "utf8")).trim().split("\n").map((line) => String(JSON.parse(line).url));
    assert.equal(urls.length, 24, urls.join("\n"));
    assert.equal(new Set(urls).size, 24);
    assert.ok(!urls.some((url) => url.includes("_7/")));
    assert.equal(JSON.parse(await readFile(stats, "utf8")).errors_callback, 1);
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("on Node 22 a rendering crawl clicks Load more in Chromium and fetches the products over HTTP", async () => {
  const site = await startJsSite({ products: 30, perPage: 10 });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(
      join(pkg.dir, "js_shop.mjs"),
      `import { Request, Spider } from "netweir";
const LOAD_ALL = [{ click: "#more" }, { wait_for: "body[data-loaded=all]" }];
export class JsShop extends Spider {
  site = "";
  async *start() { yield new Request({ url: this.site, render: true, steps: LOAD_ALL }); }
  *parse(page) {
    for (const href of page.css("a.product").attrs("href")) yield page.follow(href, { callback: this.product });
    const next = page.css("#next").attr("href");
    if (next) yield page.follow(next, { render: true, steps: LOAD_ALL });
  }
  product(page) { return { name: page.css("h1").text(), rendered: page.rendered }; }
}
`,
    );
    const out = join(pkg.dir, "js.jsonl");
    const crawl = await pkg.netweir(["crawl", "js_shop.mjs", "-a", `site=${site.url}`, "-O", out]);
    assert.equal(crawl.code, 0, crawl.stderr);
    const items = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(new Set(items.map((item) => item.name)).size, 30);
    assert.equal(items.length, 30);
    assert.ok(items.every((item) => item.rendered === false), "product pages came over plain HTTP");
  } finally {
    await pkg.remove();
    await site.close();
  }
});

Deno.test("the npm build uses no Deno global and leaves Deno's runtime file out", async () => {
  const pkg = await installBuiltPackage();
  try {
    const check = await pkg.node([
      "--input-type=module",
      "-e",
      `import { readdirSync, readFileSync, statSync } from "node:fs";
       const walk = (d) => readdirSync(d).flatMap((f) => statSync(d + "/" + f).isDirectory() ? walk(d + "/" + f) : [d + "/" + f]);
       const files = walk("node_modules/netweir").filter((f) => f.endsWith(".js"));
       const offenders = files.filter((f) => /\\bDeno\\./.test(readFileSync(f, "utf8").replace(/\\/\\*[\\s\\S]*?\\*\\/|\\/\\/.*$/gm, "")));
       console.log(JSON.stringify({ count: files.length, offenders, denoFile: files.some((f) => f.endsWith("runtime/deno.js") || f.endsWith("runtime/deno_socket.js")) }));`,
    ]);
    assert.equal(check.code, 0, check.stderr);
    const result = JSON.parse(check.stdout);
    assert.ok(result.count > 20);
    assert.deepEqual(result.offenders, []);
    assert.equal(result.denoFile, false);
    const imported = await pkg.node([
      "--input-type=module",
      "-e",
      `import * as netweir from "netweir"; console.log(typeof netweir.Spider, typeof netweir.Request, typeof netweir.Settings);`,
    ]);
    assert.equal(imported.stdout, "function function function\n", imported.stderr);
  } finally {
    await pkg.remove();
  }
});

/** Polls `check` every 100 ms until it returns something other than undefined; fails after 60 s (a guard only). */
async function eventually<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

Deno.test("npx netweir serve, from the packed npm build on Node 22, runs a scheduled job to the end and stops on Ctrl-C", async () => {
  const site = await startFixtureSite({ books: 20 });
  const pkg = await installBuiltPackage();
  let npx: ReturnType<typeof spawn> | undefined;
  let guard: ReturnType<typeof setTimeout> | undefined;
  try {
    await mkdir(join(pkg.dir, "spiders"));
    await writeFile(join(pkg.dir, "spiders", "shop.mjs"), MJS_SPIDER);
    const env = runtime.environment();
    // Node 22 first on PATH: the package's bin (#!/usr/bin/env node) and the jobs it starts run on it.
    env.PATH = [dirname(NODE22), env.PATH].filter(Boolean).join(delimiter);
    delete env.NETWEIR_SERVE_USERNAME;
    delete env.NETWEIR_SERVE_PASSWORD;
    // Its own process group, so Ctrl-C can be sent the way a terminal sends it: to npx and everything under it.
    npx = spawn("npx", ["netweir", "serve", "--project", "shop=spiders", "--port", "0", "--dir", "serve-dir"], {
      cwd: pkg.dir,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const group = npx.pid!;
    let output = "";
    npx.stdout!.setEncoding("utf8").on("data", (chunk: string) => output += chunk);
    npx.stderr!.setEncoding("utf8").on("data", (chunk: string) => output += chunk);
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      npx!.once("close", (code, signal) => resolve({ code, signal }))
    );
    guard = setTimeout(() => runtime.killProcessGroup(group, "SIGKILL"), 120_000);

    const port = await eventually("the service to listen", () => {
      return /serving shop at http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)?.[1];
    }).catch((error) => {
      throw new Error(`${error.message}; it said:\n${output}`);
    });
    const url = `http://127.0.0.1:${port}/`;
    const scheduled = await (await fetch(`${url}schedule.json`, {
      method: "POST",
      body: new URLSearchParams({ project: "shop", spider: "Shop", site: `${site.url}shop/` }),
    })).json();
    assert.equal(scheduled.status, "ok", JSON.stringify(scheduled));
    const job = await eventually("the job to finish", async () => {
      const jobs = await (await fetch(`${url}listjobs.json?project=shop`)).json();
      return jobs.finished.find((one: { id: string }) => one.id === scheduled.jobid);
    });
    const log = await (await fetch(new URL(job.log_url, url))).text();
    assert.equal(job.outcome, "finished", log);
    const items = (await (await fetch(new URL(job.items_url, url))).text()).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    assert.equal(items.length, 20);
    assert.equal(new Set(items.map((item) => item.url)).size, 20);
    const stats = await (await fetch(`${url}jobstats.json?job=${scheduled.jobid}`)).json();
    assert.equal(stats.stats.finish_reason, "finished");

    runtime.killProcessGroup(group, "SIGINT");
    const end = await exited;
    // npm exec passes Ctrl-C on and then ends by the same signal; the service under it stops cleanly.
    assert.ok(end.code === 0 || end.signal === "SIGINT", `${JSON.stringify(end)}\n${output}`);
    assert.match(output, /INFO SIGINT: stopping; running jobs are cancelled\n.*INFO stopped\n/s);
    assert.doesNotMatch(output, /ExperimentalWarning/, "Node's SQLite warning reached the user");
    assert.equal(
      await readFile(join(pkg.dir, "serve-dir", "serve.pid"), "utf8").catch(() => null),
      null,
      "--dir released",
    );
  } finally {
    clearTimeout(guard);
    if (npx && npx.exitCode === null && npx.signalCode === null) {
      runtime.killProcessGroup(npx.pid!, "SIGKILL");
      await new Promise((resolve) => npx!.once("close", resolve));
    }
    await pkg.remove();
    await site.close();
  }
});

/** Runs `npx netweir ARGS` in the installed project, Node 22 first on PATH, with `input` on standard input. */
function npxNetweir(dir: string, args: string[], input = ""): Promise<Ran> {
  const env = runtime.environment();
  env.PATH = [dirname(NODE22), env.PATH].filter(Boolean).join(delimiter);
  return runCommand("npx", ["--offline", "netweir", ...args], { cwd: dir, env, input });
}

Deno.test("npx netweir queue push, status and clear, from the packed npm build on Node 22, work against a real Redis", async () => {
  const redis = await startRedis();
  const pkg = await installBuiltPackage();
  try {
    const book = (n: number) => `http://127.0.0.1:8000/catalogue/book-${n}.html`;
    const push = await npxNetweir(pkg.dir, ["queue", "push", redis.url, "Books", book(1), book(2), book(1)]);
    assert.equal(push.stderr, "");
    assert.equal(push.stdout, "pushed 2, skipped 1 (already seen)\n");
    assert.equal(push.code, 0);

    const fromStdin = await npxNetweir(
      pkg.dir,
      ["queue", "push", redis.url, "Books", "--priority", "3", "-"],
      `# more\n${book(2)}\n\n${book(3)}\r\n${book(4)}`,
    );
    assert.equal(fromStdin.stderr, "");
    assert.equal(fromStdin.stdout, "pushed 2, skipped 1 (already seen)\n");
    assert.deepEqual(await redis.command("LLEN", "netweir:{Books}:q:3:127.0.0.1"), 2);

    const status = await npxNetweir(pkg.dir, ["queue", "status", redis.url, "Books"]);
    assert.equal(status.stdout, "waiting: 4\nheld: 0\nprocesses: 0\nseen: 4\nqueued: 4\n", status.stderr);
    const json = await pkg.netweir(["queue", "status", redis.url, "Books", "--json"]);
    assert.deepEqual(JSON.parse(json.stdout), {
      waiting: 4,
      held: 0,
      processes: 0,
      seen: 4,
      queued: 4,
      crawl: { pages: 0, items: 0, errors: 0, pages_per_second: 0 },
      live: [],
    });

    // The library's Queue, imported from the package, sees and feeds the same crawl.
    const library = await pkg.node([
      "--input-type=module",
      "-e",
      `import { Queue } from "netweir";
       const queue = new Queue(${JSON.stringify(redis.url)}, "Books");
       const pushed = await queue.push([${JSON.stringify(book(4))}, ${JSON.stringify(book(5))}], { dontFilter: true });
       console.log(JSON.stringify({ pushed, status: await queue.status() }));
       await queue.close();`,
    ]);
    assert.equal(library.stderr, "");
    assert.deepEqual(JSON.parse(library.stdout), {
      pushed: { pushed: 2, skipped: 0 },
      status: { waiting: 6, held: 0, processes: 0, seen: 5, queued: 6 },
    });

    const keys = (await redis.command("KEYS", "netweir:{Books}:*")) as string[];
    const clear = await npxNetweir(pkg.dir, ["queue", "clear", redis.url, "Books"]);
    assert.equal(clear.stdout, `deleted ${keys.length} keys of Books\n`, clear.stderr);
    assert.deepEqual(await redis.command("KEYS", "*"), []);

    const bad = await pkg.netweir(["queue", "status", "http://127.0.0.1:6379/0", "Books"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^netweir: queue URL http:\/\/127\.0\.0\.1:6379\/0: http:\/\/ is not a Redis URL/);
    await redis.stop();
    const gone = await pkg.netweir(["queue", "status", `redis://:secret@127.0.0.1:${redis.port}/0`, "Books"]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /^netweir: cannot reach the queue at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0: [^\n]+\n$/);
    assert.ok(!gone.stderr.includes("secret"), gone.stderr);
  } finally {
    await pkg.remove();
    await redis.stop();
  }
});
