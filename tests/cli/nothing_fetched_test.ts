/**
 * A crawl that fetches nothing at all ends with status 1 and one line saying so and why, against real servers on
 * 127.0.0.1: a port nothing listens on, a name that cannot resolve (.invalid), a self-signed HTTPS server. A crawl
 * that got any answer, even a 404, still exits 0.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../helpers/free_port.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { nothingFetched } from "../../src/cli/nothing_fetched.ts";
import { runCli, withTempDir } from "./_run.ts";

const MOD = JSON.stringify(new URL("../../mod.ts", import.meta.url).href);

/** A spider file starting from `urls`, with `extra` class members, yielding one item per page. */
function spiderSource(urls: string[], extra = ""): string {
  return `import { type Page, Spider } from ${MOD};
export class Starts extends Spider {
  override startUrls = ${JSON.stringify(urls)};
  ${extra}
  override parse(page: Page) {
    return { url: page.url, status: page.status };
  }
}
`;
}

/** Writes the spider into `dir` and crawls it with no retries and no robots.txt, into DIR/items.json. */
async function crawl(dir: string, source: string, env?: Record<string, string>) {
  const file = join(dir, "starts.ts");
  await writeFile(file, source);
  const items = join(dir, "items.json");
  const args = ["crawl", file, "-O", items, "-s", "retries=0", "-s", "obey_robots_txt=false"];
  const result = await runCli(args, { env });
  return { ...result, items: JSON.parse(await readFile(items, "utf8")) as Array<Record<string, unknown>> };
}

/** The last line of standard error. */
function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}

Deno.test("a crawl whose every request is refused or names no host exits 1, saying nothing was fetched", async () => {
  const port = await freePort();
  await withTempDir(async (dir) => {
    const result = await crawl(dir, spiderSource([`http://127.0.0.1:${port}/`, "http://nothere.invalid/"]));
    assert.equal(result.code, 1, result.stderr);
    assert.equal(
      lastLine(result.stderr),
      "netweir: nothing was fetched: every request failed (network: 2); each failure is logged as a warning",
    );
    assert.match(result.stderr, new RegExp(`WARNING .*connection refused by 127\\.0\\.0\\.1:${port}`));
    assert.match(result.stderr, /WARNING .*host name nothere\.invalid not found/);
    assert.doesNotMatch(result.stderr, /items written/);
    assert.deepEqual(result.items, [], "the feed is still closed off as valid JSON");
  });
});

Deno.test("a crawl that fetched one page and failed on another exits 0", async () => {
  const port = await freePort();
  const site = await startFixtureSite({ books: 1 });
  try {
    await withTempDir(async (dir) => {
      const result = await crawl(dir, spiderSource([`http://127.0.0.1:${port}/`, `${site.url}shop/`]));
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.items.length, 1);
      assert.match(result.stderr, /Stored json feed \(1 items\) in: /);
      assert.doesNotMatch(result.stderr, /items written to /, "the feed says where its items went, once");
    });
  } finally {
    await site.close();
  }
});

Deno.test("a crawl whose only answer is a 404 fetched something, and exits 0", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    await withTempDir(async (dir) => {
      const result = await crawl(dir, spiderSource([`${site.url}no-such-page`]));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /ignoring response 404/);
    });
  } finally {
    await site.close();
  }
});

/** A self-signed certificate for 127.0.0.1 (not a CA's: rustls refuses a CA certificate as a server's). */
async function selfSigned(dir: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  await promisify(execFile)("openssl", [
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"],
    ...["-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:FALSE"],
    ...["-keyout", key, "-out", cert],
  ]);
  return { cert, key };
}

Deno.test("a self-signed certificate's failure names how to trust it, and trusting it that way fetches the page", async () => {
  await withTempDir(async (dir) => {
    const { cert, key } = await selfSigned(dir);
    const server = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: await readFile(cert, "utf8"),
        key: await readFile(key, "utf8"),
        onListen() {},
      },
      () => new Response("<p>over TLS</p>", { headers: { "content-type": "text/html" } }),
    );
    try {
      const source = spiderSource([`https://127.0.0.1:${server.addr.port}/`]);
      const refused = await crawl(dir, source);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(
        refused.stderr,
        /WARNING .*TLS handshake with 127\.0\.0\.1:\d+ failed: .*(?:UnknownIssuer|self-signed certificate) \(to trust a certificate of your own, or its CA: DENO_CERT=ca\.pem with Deno, NODE_EXTRA_CA_CERTS=ca\.pem with Node\)\n/,
      );
      assert.equal(
        lastLine(refused.stderr),
        "netweir: nothing was fetched: every request failed (network: 1); each failure is logged as a warning",
      );
      // The fix the line names, applied: the same crawl fetches the page.
      const trusted = await crawl(dir, source, { DENO_CERT: cert });
      assert.equal(trusted.code, 0, trusted.stderr);
      assert.deepEqual(trusted.items, [{ url: `https://127.0.0.1:${server.addr.port}/`, status: 200 }]);
    } finally {
      await server.shutdown();
    }
  });
});

Deno.test("allowedDomains written as a URL is a warning at start, and the crawl it empties exits 1 saying why", async () => {
  const site = await startFixtureSite({ books: 1 });
  try {
    await withTempDir(async (dir) => {
      const domain = `http://127.0.0.1:${site.port}/`;
      const result = await crawl(
        dir,
        spiderSource([`${site.url}shop/`], `override allowedDomains = [${JSON.stringify(domain)}];`),
      );
      assert.equal(result.code, 1, result.stderr);
      const warning = result.stderr.split("\n").findIndex((line) => line.includes("WARNING spider Starts:"));
      assert.ok(
        warning !== -1 && warning < result.stderr.split("\n").findIndex((line) => line.includes("crawl finished")),
      );
      assert.match(
        result.stderr,
        new RegExp(
          `WARNING spider Starts: allowedDomains entry "${domain}" is a URL, not a domain, so it matches no host; ` +
            `write "127\\.0\\.0\\.1:${site.port}"\\n`,
        ),
      );
      assert.equal(
        lastLine(result.stderr),
        "netweir: nothing was fetched: every request was dropped (offsite: 1, outside allowedDomains)",
      );
      assert.deepEqual(result.items, []);
    });
  } finally {
    await site.close();
  }
});

Deno.test("the nothing-fetched line names failures and drops together, and a crawl that tried nothing has none", () => {
  const base = { pages: 0, errors: 0, dropped: {} };
  assert.equal(nothingFetched(base), undefined, "nothing tried: a shared crawl's idle process, a rerun of seen URLs");
  assert.equal(nothingFetched({ ...base, pages: 3, errors: 5, errors_network: 5 }), undefined);
  assert.equal(
    nothingFetched({ ...base, errors: 3, errors_network: 2, errors_timeout: 1, dropped: { robots: 1, trap: 2 } }),
    "nothing was fetched: 3 requests failed (network: 2, timeout: 1) and 3 dropped (robots: 1, disallowed by " +
      "robots.txt; trap: 2, looked like a crawler trap); each failure is logged as a warning",
  );
  assert.equal(
    nothingFetched({ ...base, dropped: { max_pages_per_domain: 1 } }),
    "nothing was fetched: every request was dropped (max_pages_per_domain: 1)",
  );
});
