import assert from "node:assert/strict";
import { SettingsError } from "../../src/errors.ts";
import { checkSettings, cliName, resolveCrawlSettings } from "../../src/settings/check.ts";
import { BUILTIN_PROFILES } from "../../src/settings/profiles.ts";
import { Settings } from "../../src/settings/settings.ts";

function refusedWith(setting: string, words: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof SettingsError, `expected a SettingsError, got ${error}`);
    assert.equal(error.setting, setting);
    assert.match(error.message, words);
    return true;
  };
}

const overrides = (init: Record<string, unknown>) => resolveCrawlSettings({ overrides: new Settings(init) });

Deno.test("with nothing given a crawl runs with the table's defaults", () => {
  assert.deepEqual(resolveCrawlSettings({}), new Settings().resolve());
});

Deno.test("layers go defaults, then the profile, then the spider's settings, then the overrides", () => {
  const values = resolveCrawlSettings({
    spider: new Settings({ profile: "polite", minDelay: 2, concurrency: 4 }),
    overrides: new Settings({ concurrency: 6, maxItems: 50 }),
  });
  assert.equal(values.perDomain, 1, "from the profile");
  assert.equal(values.minDelay, 2, "the spider over the profile");
  assert.equal(values.concurrency, 6, "the overrides over the spider");
  assert.equal(values.maxItems, 50, "from the overrides");
  assert.equal(values.timeout, 30, "the default");
  assert.equal(values.profile, "polite");
});

Deno.test("a profile chosen by the overrides still sits under the spider's own settings", () => {
  const values = resolveCrawlSettings({
    spider: new Settings({ concurrency: 8 }),
    overrides: Settings.fromPairs(["profile=fast"]),
  });
  assert.equal(values.concurrency, 8);
  assert.equal(values.perDomain, 16);
  assert.equal(values.autothrottle, false);
});

Deno.test("a profile named by the overrides replaces the one the spider names", () => {
  const values = resolveCrawlSettings({
    spider: new Settings({ profile: "polite" }),
    overrides: new Settings({ profile: "fast" }),
  });
  assert.equal(values.profile, "fast");
  assert.equal(values.perDomain, 16);
  assert.equal(values.minDelay, 0);
});

Deno.test("the built-in polite profile is one request at a time per host, a second apart, obeying robots.txt", () => {
  const values = overrides({ profile: "polite" });
  assert.equal(values.perDomain, 1);
  assert.ok(values.minDelay >= 1);
  assert.equal(values.autothrottle, true);
  assert.equal(values.obeyRobotsTxt, true);
});

Deno.test("the built-in fast profile allows many requests at once and adds no delay", () => {
  const values = overrides({ profile: "fast" });
  assert.ok(values.concurrency > 16);
  assert.ok(values.perDomain > 8);
  assert.equal(values.minDelay, 0);
  assert.equal(values.autothrottle, false);
});

Deno.test("every built-in profile passes the start-of-crawl checks", () => {
  for (const name of Object.keys(BUILTIN_PROFILES)) {
    assert.doesNotThrow(() => overrides({ profile: name }), name);
  }
});

Deno.test("a spider's own profile is found by name, in either spelling of its settings", () => {
  const values = resolveCrawlSettings({
    spider: new Settings({ profile: "gentle" }),
    profiles: { gentle: { per_domain: 2, maxDelay: 5 } },
  });
  assert.equal(values.perDomain, 2);
  assert.equal(values.maxDelay, 5);
});

Deno.test("a spider's own profile of the same name wins over the built-in one", () => {
  const values = resolveCrawlSettings({
    overrides: new Settings({ profile: "fast" }),
    profiles: { fast: { concurrency: 3 } },
  });
  assert.equal(values.concurrency, 3);
  assert.equal(values.perDomain, 8, "nothing of the built-in fast profile is used");
});

Deno.test("an unknown profile is refused, listing the built-in and the spider's own profiles", () => {
  assert.throws(
    () => resolveCrawlSettings({ overrides: new Settings({ profile: "turbo" }), profiles: { gentle: {} } }),
    refusedWith("profile", /unknown profile "turbo" \(known: .*polite.*\)/),
  );
  assert.throws(
    () => resolveCrawlSettings({ overrides: new Settings({ profile: "turbo" }), profiles: { gentle: {} } }),
    /fast.*gentle|gentle.*fast/,
  );
});

Deno.test("a profile named like an object's own property is refused as unknown", () => {
  for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    assert.throws(() => overrides({ profile: name }), refusedWith("profile", /unknown profile/), name);
    assert.throws(
      () => resolveCrawlSettings({ overrides: new Settings({ profile: name }), profiles: { gentle: {} } }),
      refusedWith("profile", /unknown profile/),
      name,
    );
  }
});

Deno.test("a spider's profile with a setting that does not exist is refused naming it", () => {
  assert.throws(
    () => resolveCrawlSettings({ overrides: new Settings({ profile: "bad" }), profiles: { bad: { per_domian: 1 } } }),
    refusedWith("per_domian", /did you mean per_domain/),
  );
});

Deno.test("browser_path, browser_upload_dir and browser_block are settings like any other", () => {
  assert.equal(overrides({ browserPath: "/usr/bin/chromium" }).browserPath, "/usr/bin/chromium");
  assert.equal(overrides({ browserUploadDir: "/tmp" }).browserUploadDir, "/tmp");
  assert.deepEqual(overrides({}).browserBlock, ["image", "font", "media"]);
  assert.throws(() => overrides({ browserBlock: ["pictures"] }), refusedWith("browser_block", /resource types/));
});

Deno.test("workers is a count of callback workers: 0 and above pass, below 0 is refused", () => {
  assert.equal(overrides({ workers: 2 }).workers, 2);
  assert.equal(overrides({ workers: 0 }).workers, 0);
  assert.throws(() => overrides({ workers: -1 }), /workers/);
});

Deno.test("a redis queue URL is accepted and a bad one refused as a bad value", () => {
  assert.equal(overrides({ queue: "redis://127.0.0.1:6379/0" }).queue, "redis://127.0.0.1:6379/0");
  assert.throws(() => overrides({ queue: "http://127.0.0.1:6379/0" }), SettingsError);
  assert.equal(overrides({ queue: "rediss://127.0.0.1:6380/0" }).queue, "rediss://127.0.0.1:6380/0");
  assert.throws(() => overrides({ queue: "rediss://127.0.0.1:6380/0?cert=c.pem" }), /needs both cert= and key=/);
  assert.throws(() => overrides({ queue: "redis://127.0.0.1:6379/0", queueKey: "" }), /queue key is empty/);
});

Deno.test("a queue does not mix with checkpoint or deltafetch", () => {
  for (const key of ["checkpoint", "deltafetch"]) {
    assert.throws(
      () => overrides({ queue: "redis://127.0.0.1:6379/0", [key]: "state" }),
      refusedWith(key, new RegExp(`${key} does not mix with a shared queue`)),
    );
  }
});

Deno.test("min_delay above max_delay is refused naming both values", () => {
  assert.throws(
    () => overrides({ minDelay: 5, maxDelay: 2 }),
    refusedWith("min_delay", /min_delay \(5\) is above max_delay \(2\)/),
  );
  assert.equal(overrides({ minDelay: 2, maxDelay: 2 }).minDelay, 2);
});

Deno.test("min_delay above max_delay is refused when the two come from different layers", () => {
  assert.throws(
    () =>
      resolveCrawlSettings({ spider: new Settings({ profile: "polite" }), overrides: new Settings({ maxDelay: 0.5 }) }),
    refusedWith("min_delay", /above max_delay/),
  );
});

Deno.test("proxy_rotation without proxies is refused, and passes with them", () => {
  assert.throws(() => overrides({ proxyRotation: "per_request" }), refusedWith("proxy_rotation", /needs proxies/));
  const values = overrides({ proxyRotation: "per_domain", proxies: ["http://127.0.0.1:3128"] });
  assert.equal(values.proxyRotation, "per_domain");
});

Deno.test("a valid combination of many settings passes and comes back as given", () => {
  const values = resolveCrawlSettings({
    spider: new Settings({ profile: "polite", maxDepth: 3, maxPagesPerDomain: 100 }),
    overrides: Settings.fromPairs([
      "proxies=http://127.0.0.1:1,http://127.0.0.1:2",
      "proxy_rotation=per_request",
      "min_delay=0.5",
      "max_delay=10",
      "workers=0",
      "http_auth=127.0.0.1=u:p",
      "max_items=10",
    ]),
  });
  assert.equal(values.maxDepth, 3);
  assert.equal(values.perDomain, 1);
  assert.equal(values.minDelay, 0.5);
  assert.equal(values.maxDelay, 10);
  assert.deepEqual(values.proxies, ["http://127.0.0.1:1", "http://127.0.0.1:2"]);
  assert.deepEqual(values.httpAuth, { "127.0.0.1": { user: "u", password: "p" } });
});

Deno.test("checkSettings can be called on resolved values without starting anything", () => {
  assert.doesNotThrow(() => checkSettings(new Settings().resolve()));
  const values = new Settings({ minDelay: 3, maxDelay: 1 }).resolve();
  assert.throws(() => checkSettings(values), refusedWith("min_delay", /above max_delay/));
});

Deno.test("cliName gives the command-line spelling of a setting, and leaves other names alone", () => {
  assert.equal(cliName("maxPagesPerDomain"), "max_pages_per_domain");
  assert.equal(cliName("max_items"), "max_items");
  assert.equal(cliName("nothing_like_it"), "nothing_like_it");
});

Deno.test('render takes "auto" or null, render_auto_sample a whole number from 1, render_auto_recheck a share', () => {
  assert.equal(overrides({ render: "auto" }).render, "auto");
  assert.equal(overrides({}).render, null);
  assert.throws(() => overrides({ render: "always" }), refusedWith("render", /one of auto/));
  assert.throws(() => overrides({ renderAutoSample: 0 }), refusedWith("render_auto_sample", /at least 1/));
  assert.throws(() => overrides({ renderAutoRecheck: 1.5 }), refusedWith("render_auto_recheck", /between 0 and 1/));
});

Deno.test("dns_min_ttl above dns_max_ttl is refused naming both values", () => {
  assert.throws(
    () => overrides({ dnsMinTtl: 120, dnsMaxTtl: 60 }),
    refusedWith("dns_min_ttl", /dns_min_ttl \(120\) is above dns_max_ttl \(60\)/),
  );
  assert.equal(overrides({ dnsMinTtl: 60, dnsMaxTtl: 60 }).dnsMaxTtl, 60);
});

Deno.test("dns_servers takes addresses with an optional port, and refuses names and bad ports", () => {
  const good = ["127.0.0.1", "127.0.0.1:5353", "::1", "[::1]:53", "[2001:db8::1]"];
  assert.deepEqual(overrides({ dnsServers: good }).dnsServers, good);
  for (const bad of ["resolver.example", "127.0.0.1:0", "127.0.0.1:70000", "[127.0.0.1]:53", ""]) {
    assert.throws(() => overrides({ dnsServers: [bad] }), /dns_servers must be DNS server addresses/, bad);
  }
});
