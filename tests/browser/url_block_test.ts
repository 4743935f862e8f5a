/** `browser_block`'s URL globs: what they match, and which entries the setting takes (no browser: under a second). */
import assert from "node:assert/strict";
import { SettingsError } from "../../src/errors.ts";
import { globToRegExp, urlBlock } from "../../src/browser/url_block.ts";
import { resolveCrawlSettings } from "../../src/settings/check.ts";
import { Settings } from "../../src/settings/settings.ts";

Deno.test("a glob matches the whole URL: * any run of characters, ? one, a backslash makes the next plain", () => {
  const ads = urlBlock(["*/ads/*", "https://cdn.example/track.js"]);
  assert.equal(ads("http://127.0.0.1:8000/ads/tracker.js"), true);
  assert.equal(ads("https://news.example/a/b/ads/x?y=1"), true);
  assert.equal(ads("https://cdn.example/track.js"), true);
  assert.equal(ads("https://cdn.example/track.js?v=2"), false, "the whole URL, not a part of it");
  assert.equal(ads("http://127.0.0.1:8000/static/app.js"), false);
  assert.equal(globToRegExp("*.doubleclick.net/*").test("https://ad.doubleclick.net/pixel"), true);
  assert.equal(globToRegExp("*.doubleclick.net/*").test("https://doubleclickxnet/pixel"), false, ". is plain");
  assert.equal(globToRegExp("https://a.example/?").test("https://a.example/x"), true);
  assert.equal(globToRegExp("https://a.example/\\*").test("https://a.example/x"), false);
  assert.equal(globToRegExp("https://a.example/\\*").test("https://a.example/*"), true);
  assert.equal(urlBlock([])("https://a.example/"), false);
});

Deno.test("browser_block takes resource types and URL globs side by side, and refuses a word that is neither", () => {
  const resolve = (browserBlock: string[]) =>
    resolveCrawlSettings({ overrides: new Settings({ browserBlock }) }).browserBlock;
  assert.deepEqual(resolve(["image", "*/ads/*", "https://cdn.example/x.js"]), [
    "image",
    "*/ads/*",
    "https://cdn.example/x.js",
  ]);
  assert.throws(() => resolve(["image", "pictures"]), (error: unknown) => {
    assert.ok(error instanceof SettingsError);
    assert.equal(error.setting, "browser_block");
    assert.match(error.message, /resource types among .*, or URL globs/);
    return true;
  });
});
