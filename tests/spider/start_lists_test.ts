import assert from "node:assert/strict";
import { allowedDomainWarnings, startListProblem } from "../../src/spider/start_lists.ts";

Deno.test("a start URL without a scheme is refused with the URL it probably meant", () => {
  for (const url of ["localhost:8000/x", "books.toscrape.com", "books.toscrape.com/a/b", "127.0.0.1:8000"]) {
    assert.equal(
      startListProblem({ startUrls: [url] }, "S"),
      `spider S: start URL ${JSON.stringify(url)} has no scheme (did you mean "http://${url}"?)`,
    );
  }
});

Deno.test("a start URL of another scheme, or a relative one, is refused naming why it could not be fetched", () => {
  assert.equal(
    startListProblem({ startUrls: ["mailto:shop@example.com"] }, "S"),
    'spider S: start URL "mailto:shop@example.com" has the scheme mailto:; only http: and https: are fetched',
  );
  assert.equal(
    startListProblem({ sitemapUrls: ["/sitemap.xml"] }, "S"),
    'spider S: sitemap URL "/sitemap.xml" is not an absolute URL: start with http:// or https://',
  );
});

Deno.test("http and https start URLs pass, in any case and with any port", () => {
  const startUrls = ["http://a.example/", "HTTPS://B.example:8443/x?y=1", "http://[::1]:8000/"];
  assert.equal(startListProblem({ startUrls, sitemapUrls: [], allowedDomains: ["a.example"] }, "S"), undefined);
});

Deno.test("a string where a list belongs is refused naming the list, and so is a list of anything but strings", () => {
  assert.equal(
    startListProblem({ startUrls: "http://a.example/" }, "S"),
    'spider S: startUrls is a string; it must be a list: startUrls = ["http://a.example/"]',
  );
  assert.equal(
    startListProblem({ allowedDomains: "a.example" }, "S"),
    'spider S: allowedDomains is a string; it must be a list: allowedDomains = ["a.example"]',
  );
  assert.equal(
    startListProblem({ sitemapUrls: { a: 1 } }, "S"),
    "spider S: sitemapUrls must be a list of strings, not an object",
  );
  assert.equal(
    startListProblem({ startUrls: ["http://a.example/", 7] }, "S"),
    "spider S: startUrls[1] is a number, not a string",
  );
});

Deno.test("an allowed domain that matches no host is a warning naming what to write", () => {
  assert.deepEqual(
    allowedDomainWarnings(
      { allowedDomains: ["http://127.0.0.1:8000/", "shop.example/books", "*.shop.example", " "] },
      "S",
    ),
    [
      'spider S: allowedDomains entry "http://127.0.0.1:8000/" is a URL, not a domain, so it matches no host; write "127.0.0.1:8000"',
      'spider S: allowedDomains entry "shop.example/books" has a path, so it matches no host; write "shop.example"',
      'spider S: allowedDomains entry "*.shop.example" has a wildcard, so it matches no host; write "shop.example" (a domain holds its subdomains)',
      'spider S: allowedDomains entry " " is empty, so it matches no host',
    ],
  );
  assert.deepEqual(
    allowedDomainWarnings({ allowedDomains: ["shop.example", ".shop.example", "127.0.0.1:8000", "::1"] }, "S"),
    [],
  );
});
