import assert from "node:assert/strict";
import { fileForUrlPath, serveDirectory } from "../../scripts/demo.ts";
import { SITE_DIR } from "../../scripts/gen_site.ts";
import { shopBook, shopPage } from "../../examples/shop.ts";

Deno.test("the demo's file server maps URL paths into its folder and never out of it", () => {
  assert.equal(fileForUrlPath("/site", "/"), "/site/index.html");
  assert.equal(fileForUrlPath("/site", "/catalogue/x_1/"), "/site/catalogue/x_1/index.html");
  assert.equal(fileForUrlPath("/site", "/catalogue/page-2.html"), "/site/catalogue/page-2.html");
  assert.equal(fileForUrlPath("/site", "/a%20b.html"), "/site/a b.html");
  assert.equal(fileForUrlPath("/site", "/../etc/passwd"), "/site/etc/passwd");
  assert.equal(fileForUrlPath("/site", "/%2e%2e/etc/passwd"), "/site/etc/passwd");
  assert.equal(fileForUrlPath("/site", "/%E0%A4%A"), undefined);
});

Deno.test("the demo's file server serves the generated shop and counts the pages it served", async () => {
  const server = await serveDirectory(SITE_DIR);
  try {
    const front = await fetch(server.url);
    assert.equal(front.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(await front.text(), shopPage("/", 300).body);
    const bookPath = `/catalogue/${shopBook(3).slug}/index.html`;
    assert.equal(await (await fetch(new URL(bookPath, server.url))).text(), shopPage(bookPath, 300).body);
    const missing = await fetch(new URL("/nope.html", server.url));
    assert.equal(missing.status, 404);
    await missing.text();
    const posted = await fetch(server.url, { method: "POST", body: "x" });
    assert.equal(posted.status, 405);
    await posted.text();
    assert.equal(server.served(), 2);
  } finally {
    await server.close();
  }
});
