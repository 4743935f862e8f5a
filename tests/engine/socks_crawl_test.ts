/** A crawl through a SOCKS proxy that dies in the middle: it ends, each request after names the dead proxy. */
import assert from "node:assert/strict";
import { type Page, Request, Spider } from "../../mod.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { startMicrosocks } from "../helpers/socks_proxy.ts";
import { crawl } from "../helpers/crawl_in_process.ts";

Deno.test("a SOCKS proxy SIGKILLed mid-crawl: the crawl ends, and its failures name the proxy without its password", async () => {
  const site = await startFixtureSite();
  const proxy = await startMicrosocks({ user: "mid", password: "crawl-secret" });
  try {
    let seen = 0;
    class Slow extends Spider {
      override async *start() {
        for (let i = 0; i < 12; i++) yield new Request({ url: `${site.url}slow?ms=200&n=${i}` });
      }
      override async parse(_page: Page) {
        if (++seen === 2) await proxy.kill();
      }
    }
    const { stats, lines } = await crawl(new Slow(), {
      proxies: [`socks5h://mid:crawl-secret@${proxy.address}`],
      concurrency: 2,
      retries: 1,
    });
    assert.ok(seen >= 2 && seen < 12, `pages seen: ${seen}`);
    assert.ok(Number(stats.errors_network ?? 0) >= 1, JSON.stringify(stats));
    assert.ok(
      lines.some((line) => line.includes(`SOCKS proxy socks5h://mid@${proxy.address} could not be reached`)),
      lines.join("\n"),
    );
    assert.ok(lines.every((line) => !line.includes("crawl-secret")));
  } finally {
    await proxy.kill();
    await site.close();
  }
});
