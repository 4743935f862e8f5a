/**
 * The single binary (deno task build:binary), built once for this file and run the way a user without Deno, Node or
 * node_modules runs it: PATH holds nothing but a directory with the binary in it, and HOME is empty.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { spawn } from "node:child_process";
import { copyFile, link, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../../scripts/build_binary.ts";
import { runCommand } from "../helpers/command.ts";
import { eventually } from "../helpers/eventually.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { shopSpiderMjs } from "../helpers/npm_spiders.ts";
import { startRedis } from "../helpers/redis.ts";
import { Terminal } from "../helpers/tmux.ts";
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3Server } from "../helpers/s3_server.ts";

const TS_SPIDER = `import { type Page, Request, Spider } from "netweir";

interface Book {
  title: string;
  xpathTitle: string;
  url: string;
}

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
  parseBook(page: Page): Book {
    return { title: page.css("h1").text(), xpathTitle: page.xpath("//h1/text()").text(), url: page.url };
  }
}
`;

/** A directory holding a copy of the binary, the only thing on PATH; and a working directory beside it. */
interface Sandbox {
  readonly dir: string;
  readonly work: string;
  readonly env: Record<string, string>;
  netweir(args: string[], input?: string): ReturnType<typeof runCommand>;
}

let built: Promise<string> | undefined;

async function sandbox(): Promise<Sandbox> {
  built ??= buildBinary();
  const binary = await built;
  const dir = await mkdtemp(join(tmpdir(), "netweir-binary-"));
  const bin = join(dir, "bin");
  const work = join(dir, "work");
  await mkdir(bin);
  await mkdir(work);
  // A hard link is the binary itself under another name, found through PATH like a copy, without writing 124 MiB
  // for every test; a copy where the two directories are on different file systems.
  await link(binary, join(bin, "netweir")).catch(() => copyFile(binary, join(bin, "netweir")));
  const env = { PATH: bin, HOME: "", TMPDIR: dir };
  return {
    dir,
    work,
    env,
    netweir: (args, input) => runCommand(join(bin, "netweir"), args, { cwd: work, env, input }),
  };
}

const readItems = async (path: string) =>
  (await readFile(path, "utf8")).trim().split("\n").map((line) => JSON.parse(line));

Deno.test("the binary prints its version and crawls the shop from a .ts and a .js spider, with nothing else on PATH", async () => {
  const site = await startFixtureSite({ books: 40 });
  const box = await sandbox();
  try {
    const version = await box.netweir(["version"]);
    assert.equal(version.stderr, "");
    assert.equal(version.stdout, "netweir 0.4.0\nnode 22.23.3\n");
    assert.equal(version.code, 0);

    await writeFile(join(box.work, "typed.ts"), TS_SPIDER);
    await writeFile(join(box.work, "shop.js"), shopSpiderMjs());
    const list = await box.netweir(["list", "."]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout, "Shop\tshop.js\nTypedShop\ttyped.ts\n");
    for (const file of ["typed.ts", "shop.js"]) {
      const out = join(box.work, `${file}.jsonl`);
      const crawl = await box.netweir(["crawl", file, "-a", `site=${site.url}shop/`, "-O", out]);
      assert.equal(crawl.code, 0, crawl.stderr);
      assert.doesNotMatch(crawl.stderr, /Warning/);
      const items = await readItems(out);
      assert.equal(items.length, 40, file);
      assert.equal(new Set(items.map((item) => item.url)).size, 40);
      if (file === "typed.ts") {
        // XPath is required by a path made at run time, which the binary's bundler cannot follow on its own.
        assert.ok(items.every((item) => item.title !== "" && item.xpathTitle === item.title), "XPath in the binary");
      }
    }

    const bad = await box.netweir(["crawl", "shop.js", "-s", "concurrency=0"]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, "netweir: setting concurrency must be at least 1\n");
    await writeFile(
      join(box.work, "threads.ts"),
      `import { type Page, Request, Spider } from "netweir";
import { isMainThread } from "node:worker_threads";
export class Threads extends Spider {
  site: string = "";
  override async *start(): AsyncGenerator<Request> { yield new Request({ url: this.site }); }
  override *parse(page: Page) {
    for (const href of page.css("article.product_pod h3 a").attrs("href")) yield page.follow(href, { callback: this.book });
    const next = page.css("li.next a").attr("href");
    if (next) yield page.follow(next);
  }
  book(page: Page): { url: string; mainThread: boolean; title: string } {
    return { url: page.url, mainThread: isMainThread, title: page.xpath("//h1/text()").text() };
  }
}
`,
    );
    const threaded = join(box.work, "threads.jsonl");
    const workers = await box.netweir([
      "crawl",
      "threads.ts",
      "-a",
      `site=${site.url}shop/`,
      "-s",
      "workers=2",
      "-O",
      threaded,
    ]);
    assert.equal(workers.code, 0, workers.stderr);
    assert.doesNotMatch(workers.stderr, /Warning/);
    const threadedItems = await readItems(threaded);
    assert.equal(threadedItems.length, 40);
    assert.ok(threadedItems.every((item) => item.mainThread === false), "a callback ran on the main thread");
    assert.ok(threadedItems.every((item) => typeof item.title === "string" && item.title !== ""), "XPath in a worker");

    const project = await box.netweir(["startproject", "books"]);
    assert.equal(project.code, 0, project.stderr);
    assert.match(await readFile(join(box.work, "books", "spiders", "example.ts"), "utf8"), /from "netweir"/);
    // The binary's project needs nothing installed: no link to a package directory that is inside the binary, no
    // npx, and its spider imports "netweir" from the binary itself.
    assert.equal(project.stdout.split("\n")[1], "try: cd books && netweir crawl spiders/example.ts -o items.jsonl");
    assert.equal(existsSync(join(box.work, "books", "node_modules")), false);
    assert.equal(JSON.parse(await readFile(join(box.work, "books", "package.json"), "utf8")).dependencies, undefined);
    assert.doesNotMatch(await readFile(join(box.work, "books", "README.md"), "utf8"), /npx/);
    const listed = await box.netweir(["list", "books/spiders"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, "example\tbooks/spiders/example.ts\n");
  } finally {
    await rm(box.dir, { recursive: true, force: true });
    await site.close();
  }
});

Deno.test("the binary's queue push and status work against a real Redis", async () => {
  const redis = await startRedis();
  const box = await sandbox();
  try {
    const book = (n: number) => `http://127.0.0.1:8000/catalogue/book-${n}.html`;
    const push = await box.netweir(["queue", "push", redis.url, "Books", book(1), book(2), book(1)]);
    assert.equal(push.stderr, "");
    assert.equal(push.stdout, "pushed 2, skipped 1 (already seen)\n");
    const fromStdin = await box.netweir(["queue", "push", redis.url, "Books", "-"], `${book(3)}\n${book(2)}\n`);
    assert.equal(fromStdin.stdout, "pushed 1, skipped 1 (already seen)\n", fromStdin.stderr);
    const status = await box.netweir(["queue", "status", redis.url, "Books", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout), {
      waiting: 3,
      held: 0,
      processes: 0,
      seen: 3,
      queued: 3,
      crawl: { pages: 0, items: 0, errors: 0, pages_per_second: 0 },
      live: [],
    });
  } finally {
    await rm(box.dir, { recursive: true, force: true });
    await redis.stop();
  }
});

Deno.test("the binary uploads an s3:// feed, its signer loaded from inside it", async () => {
  const site = await startFixtureSite({ books: 12 });
  const s3 = await startS3Server({ buckets: ["feeds"] });
  const box = await sandbox();
  try {
    await writeFile(join(box.work, "shop.js"), shopSpiderMjs());
    const env = {
      AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
      AWS_ENDPOINT_URL: s3.endpoint,
    };
    const crawl = await runCommand(join(box.dir, "bin", "netweir"), [
      "crawl",
      "shop.js",
      "-a",
      `site=${site.url}shop/`,
      "-o",
      "s3://feeds/%(name)s.jsonl",
    ], { cwd: box.work, env: { ...box.env, ...env } });
    assert.equal(crawl.code, 0, crawl.stderr);
    const object = await s3.getObject("feeds", "Shop.jsonl");
    assert.ok(object, crawl.stderr);
    assert.equal(new TextDecoder().decode(object.body).trim().split("\n").length, 12);
  } finally {
    await rm(box.dir, { recursive: true, force: true });
    await s3.stop();
    await site.close();
  }
});

Deno.test("the binary's serve runs a scheduled job to the end in a process of its own", async () => {
  const site = await startFixtureSite({ books: 15 });
  const box = await sandbox();
  const serve = spawn(join(box.dir, "bin", "netweir"), [
    "serve",
    "--project",
    "shop=spiders",
    "--port",
    "0",
    "--dir",
    "serve-dir",
  ], { cwd: box.work, env: box.env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  serve.stdout.setEncoding("utf8").on("data", (chunk: string) => output += chunk);
  serve.stderr.setEncoding("utf8").on("data", (chunk: string) => output += chunk);
  const exited = new Promise<string>((resolve) => serve.once("close", (code, signal) => resolve(`${code} ${signal}`)));
  try {
    await mkdir(join(box.work, "spiders"));
    await writeFile(join(box.work, "spiders", "shop.ts"), TS_SPIDER);
    const port = await eventually(
      "the service to listen",
      () => /serving shop at http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)?.[1],
    )
      .catch((error) => {
        throw new Error(`${error.message}; it said:\n${output}`);
      });
    const url = `http://127.0.0.1:${port}/`;
    const scheduled = await (await fetch(`${url}schedule.json`, {
      method: "POST",
      body: new URLSearchParams({ project: "shop", spider: "TypedShop", site: `${site.url}shop/` }),
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
    assert.equal(items.length, 15);
    serve.kill("SIGINT");
    // From a shell it exits 0; started by this test runner it has been seen to end by the SIGINT itself once it had
    // stopped (the npm build's test meets the same through npx). Either way it must have stopped cleanly first.
    assert.match(await exited, /^(0 null|null SIGINT)$/, output);
    assert.match(output, /INFO SIGINT: stopping; running jobs are cancelled\n.*INFO stopped\n/s);
    assert.equal(
      await readFile(join(box.work, "serve-dir", "serve.pid"), "utf8").catch(() => null),
      null,
      "--dir released",
    );
    assert.doesNotMatch(output, /Warning/);
  } finally {
    if (serve.exitCode === null) serve.kill("SIGKILL");
    await exited;
    await rm(box.dir, { recursive: true, force: true });
    await site.close();
  }
});

Deno.test("the binary runs fetch, parse and the shell's prompt of the developer's loop", async () => {
  const site = await startFixtureSite({ books: 2 });
  const box = await sandbox();
  const term = await Terminal.start([join(box.dir, "bin", "netweir"), "shell", `${site.url}shop/`], {
    cwd: box.work,
    env: box.env,
  });
  try {
    await writeFile(join(box.work, "typed.ts"), TS_SPIDER);
    const fetched = await box.netweir(["fetch", `${site.url}shop/`]);
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.equal(fetched.stdout, await (await fetch(`${site.url}shop/`)).text());
    const parsed = await box.netweir(["parse", `${site.url}shop/`, "--spider-file", "typed.ts", "--jsonl"]);
    assert.equal(parsed.code, 0, parsed.stderr);
    const requests = parsed.stdout.trim().split("\n").map((line) => JSON.parse(line))
      .filter((line) => line.type === "request" && line.callback === "parseBook");
    assert.equal(requests.length, 2);

    await term.waitFor(/netweir>$/);
    await term.type('page.css("article.product_pod h3 a").length');
    await term.waitFor(/^2$/m);
    await term.type("exit()");
    assert.equal(await term.exited(), 0);
  } finally {
    await term.close();
    await rm(box.dir, { recursive: true, force: true });
    await site.close();
  }
});
