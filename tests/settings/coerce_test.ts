import assert from "node:assert/strict";
import { SettingsError } from "../../src/errors.ts";
import { parseSettingText, validateSetting } from "../../src/settings/coerce.ts";
import { findSetting } from "../../src/settings/table.ts";

function row(name: string) {
  const found = findSetting(name);
  assert.ok(found, `no setting ${name}`);
  return found;
}

const parse = (name: string, text: string) => parseSettingText(row(name), text);
const validate = (name: string, value: unknown) => validateSetting(row(name), value);

/** Asserts that `run` throws a SettingsError naming `setting`, with `words` in its message. */
function refuses(run: () => unknown, setting: string, words?: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof SettingsError, `expected a SettingsError, got ${error}`);
    assert.equal(error.setting, setting);
    assert.ok(error.message.includes(setting), `message does not name ${setting}: ${error.message}`);
    if (words) assert.match(error.message, words);
    return true;
  });
}

Deno.test("int text is parsed as a whole number, with spaces and a sign allowed", () => {
  assert.equal(parse("concurrency", "32"), 32);
  assert.equal(parse("concurrency", " 7 "), 7);
  assert.equal(parse("max_depth", "+3"), 3);
  assert.equal(parse("max_depth", "-1"), -1);
});

Deno.test("int text that is not a whole number is refused naming the setting", () => {
  for (const text of ["1.5", "1e3", "ten", "", "0x10", "3 4"]) {
    refuses(() => parse("concurrency", text), "concurrency", /whole number/);
  }
});

Deno.test("float text is parsed as a number, whole or not", () => {
  assert.equal(parse("min_delay", "0.25"), 0.25);
  assert.equal(parse("min_delay", "2"), 2);
  assert.equal(parse("timeout", " 1.5e1 "), 15);
  assert.equal(parse("min_delay", "-0.5"), -0.5);
});

Deno.test("float text that is not a finite number is refused naming the setting", () => {
  for (const text of ["", "  ", "fast", "Infinity", "NaN", "1,5"]) {
    refuses(() => parse("timeout", text), "timeout", /number/);
  }
});

Deno.test("bool text accepts true/false, yes/no, on/off and 1/0 in any case", () => {
  for (const text of ["true", "TRUE", "True", "1", "yes", "Yes", "on", "ON", " true "]) {
    assert.equal(parse("cookies", text), true, text);
  }
  for (const text of ["false", "FALSE", "0", "no", "NO", "off", "Off"]) {
    assert.equal(parse("cookies", text), false, text);
  }
});

Deno.test("bool text that is not a yes or a no is refused naming the setting", () => {
  for (const text of ["", "2", "y", "enabled", "truthy"]) {
    refuses(() => parse("obey_robots_txt", text), "obey_robots_txt", /true or false/);
  }
});

Deno.test("null, none and empty text give null for a nullable setting of any type", () => {
  for (const text of ["null", "NULL", "None", "none", "", "  "]) {
    assert.equal(parse("max_items", text), null, `int ${JSON.stringify(text)}`);
    assert.equal(parse("max_time", text), null, `float ${JSON.stringify(text)}`);
    assert.equal(parse("progress", text), null, `bool ${JSON.stringify(text)}`);
    assert.equal(parse("proxy_rotation", text), null, `string ${JSON.stringify(text)}`);
  }
});

Deno.test("null text is an ordinary string for a setting that cannot be null", () => {
  assert.equal(parse("user_agent", "null"), "null");
  refuses(() => parse("concurrency", "null"), "concurrency");
  refuses(() => parse("cookies", "none"), "cookies");
});

Deno.test("string text is kept as written", () => {
  assert.equal(parse("user_agent", "MyBot/1.0 (+https://example.com/bot)"), "MyBot/1.0 (+https://example.com/bot)");
  assert.equal(parse("queue", "redis://127.0.0.1:6379/0"), "redis://127.0.0.1:6379/0");
});

Deno.test("a list of strings is read from commas or from a JSON array", () => {
  assert.deepEqual(parse("proxies", "http://127.0.0.1:1,http://127.0.0.1:2"), [
    "http://127.0.0.1:1",
    "http://127.0.0.1:2",
  ]);
  assert.deepEqual(parse("proxies", " http://a:1 , ,http://b:2, "), ["http://a:1", "http://b:2"]);
  assert.deepEqual(parse("proxies", '["http://a:1", "http://b,c:2"]'), ["http://a:1", "http://b,c:2"]);
  assert.deepEqual(parse("proxies", ""), []);
});

Deno.test("a list of whole numbers is read from commas or from a JSON array", () => {
  assert.deepEqual(parse("retry_http_codes", "500, 503,429"), [500, 503, 429]);
  assert.deepEqual(parse("retry_http_codes", "[500,503]"), [500, 503]);
  assert.deepEqual(parse("retry_http_codes", ""), []);
});

Deno.test("a list of whole numbers with something else in it is refused naming the setting", () => {
  refuses(() => parse("retry_http_codes", "500,five"), "retry_http_codes", /whole numbers/);
  refuses(() => parse("retry_http_codes", "500,5.5"), "retry_http_codes");
  refuses(() => parse("retry_http_codes", "[500,"), "retry_http_codes", /JSON/);
});

Deno.test("headers are read from a JSON object, and broken JSON is refused naming the setting", () => {
  assert.deepEqual(parse("default_headers", '{"accept": "text/html", "x-a": "1"}'), {
    accept: "text/html",
    "x-a": "1",
  });
  refuses(() => parse("default_headers", "accept=text/html"), "default_headers", /JSON/);
  refuses(() => parse("default_headers", "{accept: 1"), "default_headers", /JSON/);
});

Deno.test("an auth map is read from HOST=USER:PASSWORD entries, hosts lower-cased, passwords kept whole", () => {
  assert.deepEqual(parse("http_auth", "Example.COM=alice:s3cret, 127.0.0.1:8080=bob:pa:ss=word"), {
    "example.com": { user: "alice", password: "s3cret" },
    "127.0.0.1:8080": { user: "bob", password: "pa:ss=word" },
  });
  assert.deepEqual(parse("http_auth", "a.test=user:"), { "a.test": { user: "user", password: "" } });
  assert.deepEqual(parse("http_auth", ""), {});
});

Deno.test("an auth map is also read from a JSON object", () => {
  assert.deepEqual(parse("http_auth", '{"a.test": {"user": "u", "password": "p,q"}}'), {
    "a.test": { user: "u", password: "p,q" },
  });
});

Deno.test("an auth map entry without a host or a colon is refused naming the setting", () => {
  refuses(() => parse("http_auth", "example.com"), "http_auth", /HOST=USER:PASSWORD/);
  refuses(() => parse("http_auth", "example.com=alice"), "http_auth", /HOST=USER:PASSWORD/);
  refuses(() => parse("http_auth", "=alice:pw"), "http_auth", /HOST=USER:PASSWORD/);
});

Deno.test("a typed value of the right type is returned unchanged", () => {
  assert.equal(validate("concurrency", 4), 4);
  assert.equal(validate("min_delay", 0.5), 0.5);
  assert.equal(validate("cookies", false), false);
  assert.equal(validate("log_level", "debug"), "debug");
  assert.deepEqual(validate("proxies", ["https://127.0.0.1:3128"]), ["https://127.0.0.1:3128"]);
  assert.deepEqual(validate("retry_http_codes", [429]), [429]);
  assert.deepEqual(validate("default_headers", { a: "b" }), { a: "b" });
  assert.deepEqual(validate("http_auth", { h: { user: "u", password: "p" } }), { h: { user: "u", password: "p" } });
});

Deno.test("a typed value of the wrong type is refused naming the setting", () => {
  const wrong: [string, unknown, RegExp][] = [
    ["concurrency", 1.5, /whole number/],
    ["concurrency", "4", /whole number/],
    ["min_delay", "1", /number/],
    ["min_delay", Infinity, /number/],
    ["min_delay", NaN, /number/],
    ["cookies", "true", /true or false/],
    ["cookies", 1, /true or false/],
    ["user_agent", 5, /string/],
    ["proxies", "http://a:1", /list of strings/],
    ["proxies", ["http://a:1", 2], /list of strings/],
    ["retry_http_codes", [500, 5.5], /whole numbers/],
    ["retry_http_codes", 500, /whole numbers/],
    ["default_headers", { a: 1 }, /header/],
    ["default_headers", ["a"], /header/],
    ["http_auth", { h: "u:p" }, /user, password/],
    ["http_auth", { h: { user: "u" } }, /user, password/],
  ];
  for (const [name, value, words] of wrong) refuses(() => validate(name, value), name, words);
});

Deno.test("null is allowed for nullable settings only", () => {
  assert.equal(validate("max_items", null), null);
  assert.equal(validate("max_items", undefined), null);
  refuses(() => validate("concurrency", null), "concurrency", /cannot be null/);
  refuses(() => validate("user_agent", null), "user_agent", /cannot be null/);
});

Deno.test("a value outside a setting's choices is refused listing the choices", () => {
  assert.equal(validate("proxy_rotation", "per_domain"), "per_domain");
  refuses(() => validate("proxy_rotation", "random"), "proxy_rotation", /per_request, per_domain/);
  refuses(() => validate("log_level", "INFO"), "log_level", /debug, info, warning, error/);
});

Deno.test("a value its row's check refuses is refused with the check's words", () => {
  refuses(() => validate("concurrency", 0), "concurrency", /at least 1/);
  refuses(() => validate("timeout", 0), "timeout", /greater than 0/);
  refuses(() => validate("proxies", ["ftp://127.0.0.1"]), "proxies", /http/);
  refuses(() => validate("max_depth", parse("max_depth", "-1")), "max_depth", /at least 0/);
});

Deno.test("an empty queue URL or key is a mistake, refused, while null and none still mean no value", () => {
  for (const name of ["queue", "queue_key"]) {
    refuses(() => parse(name, ""), name, /must not be empty/);
    refuses(() => parse(name, "  "), name, /must not be empty/);
    assert.equal(parse(name, "null"), null);
    assert.equal(parse(name, "none"), null);
  }
  assert.equal(parse("queue_key", "books-2026-10"), "books-2026-10");
  // Other nullable settings keep reading empty text as null.
  assert.equal(parse("max_depth", ""), null);
});
