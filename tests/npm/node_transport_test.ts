/**
 * SOCKS proxies and per-host settings through the packed npm build under Node 22, as a user of the package runs a
 * crawl: through microsocks with a login on 127.0.0.1, with a `hosts` entry for the shop's host; then with the proxy
 * killed, where the failure names the proxy and never its password.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { installBuiltPackage } from "../helpers/node_package.ts";
import { shopSpiderMjs } from "../helpers/npm_spiders.ts";
import { startMicrosocks } from "../helpers/socks_proxy.ts";

Deno.test("on the npm build under Node 22, a crawl goes through a SOCKS5 proxy with a hosts entry for its site", async () => {
  const site = await startFixtureSite({ books: 20 });
  const proxy = await startMicrosocks({ user: "npm-user", password: "npm-secret" });
  const pkg = await installBuiltPackage();
  try {
    await writeFile(join(pkg.dir, "shop.mjs"), shopSpiderMjs());
    const out = join(pkg.dir, "items.jsonl");
    const args = (proxyUrl: string) => [
      "crawl",
      "shop.mjs",
      "-a",
      `site=${site.url}shop/`,
      "-O",
      out,
      "-s",
      `proxies=["${proxyUrl}"]`,
      "-s",
      'hosts={"127.0.0.1": {"user_agent": "via-socks/1", "per_domain": 2}}',
      "-s",
      "retries=0",
    ];
    const ran = await pkg.netweir(args(`socks5h://npm-user:npm-secret@${proxy.address}`));
    assert.equal(ran.code, 0, ran.stderr);
    const items = (await readFile(out, "utf8")).trim().split("\n");
    assert.equal(items.length, 20);
    const shop = site.requests.filter((request) => request.path.startsWith("/shop/"));
    assert.ok(shop.length > 20);
    for (const request of shop) assert.equal(request.headers.get("user-agent"), "via-socks/1");

    await proxy.kill();
    const failed = await pkg.netweir(args(`socks5h://npm-user:npm-secret@${proxy.address}`));
    assert.match(failed.stderr, new RegExp(`SOCKS proxy socks5h://npm-user@${proxy.address} could not be reached`));
    assert.doesNotMatch(failed.stderr, /npm-secret/);
  } finally {
    await pkg.remove();
    await proxy.kill();
    await site.close();
  }
});
