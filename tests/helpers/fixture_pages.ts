/**
 * The fixture site's pages: the book shop, robots.txt, a page of awkward links, crawler traps and a Latin-1 page.
 * The HTTP behaviours (redirects, statuses, cookies...) are in fixture_routes.ts.
 */
import { shopPage } from "../../examples/shop.ts";
import { type Route, text } from "./fixture_routes.ts";

const HTML = "text/html; charset=utf-8";

function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": HTML } });
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body>\n${body}\n</body></html>\n`;
}

/** `/`: an index of the site's main pages. */
export const home: Route = () =>
  html(page("Fixture site", '<h1>Fixture site</h1>\n<a href="shop/">shop</a>\n<a href="links">links</a>'));

/** `/shop/...`: the generated book shop (examples/shop.ts) with `/shop` taken off the path. */
export const shop: Route = ({ url, books }) => {
  const answer = shopPage(url.pathname.slice("/shop".length), books);
  return new Response(answer.body, { status: answer.status, headers: { "content-type": answer.contentType } });
};

/** `/robots.txt`: the site's robots option (allow all by default), or 404 when it is null. */
export const robots: Route = ({ robots }) =>
  robots === null ? text("no robots.txt\n", 404) : text(robots, 200, { "content-type": "text/plain" });

/** The robots.txt served when none is given: everything allowed. */
export const DEFAULT_ROBOTS = "User-agent: *\nDisallow:\n";

/**
 * `/links`: a page with every kind of link an extractor meets. Its `<base href="/links/base/">` changes how the
 * relative ones resolve; {@link linksPageHttpLinks} lists the http(s) links it resolves to (without fragments).
 */
export const links: Route = () =>
  html(page(
    "Links",
    `<base href="/links/base/">
<h1>Links</h1>
<a href="relative.html">relative to the base</a>
<a href="../up.html">up from the base</a>
<a href="/links/absolute-path.html">absolute path</a>
<a href="?page=2">query only</a>
<a href="https://other.example/page">another host over https</a>
<a href="http://www.other.example:8080/deep/page?x=1#part">another host with port, query and fragment</a>
<a href="//cdn.other.example/lib">protocol-relative</a>
<a href="mailto:books@example.com">mail</a>
<a href="javascript:void(0)">script</a>
<a href="tel:+441234567890">phone</a>
<a href="#top">fragment only</a>
<a href="relative.html#section">relative with fragment</a>
<a>no href</a>
<a href="  spaced.html  ">padded with spaces</a>
<area href="from-area.html" alt="area link">`,
  ));

/** The http(s) links of `/links` resolved against `origin` (as `http://127.0.0.1:PORT`), fragments removed, unique. */
export function linksPageHttpLinks(origin: string): string[] {
  return [
    `${origin}/links/base/relative.html`,
    `${origin}/links/up.html`,
    `${origin}/links/absolute-path.html`,
    `${origin}/links/base/?page=2`,
    "https://other.example/page",
    "http://www.other.example:8080/deep/page?x=1",
    "http://cdn.other.example/lib",
    `${origin}/links/base/`,
    `${origin}/links/base/spaced.html`,
    `${origin}/links/base/from-area.html`,
  ];
}

/** `/links/...`: any page the links page points to on this host, so following them finds pages. */
export const linkTarget: Route = ({ url }) => html(page("Link target", `<h1>${url.pathname}</h1>`));

/** `/trap/...`: every page links one segment deeper, repeating `again/`, for ever. */
export const trap: Route = ({ url }) => {
  const here = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  return html(page("Trap", `<h1>${here}</h1>\n<a href="${here}again/">deeper</a>`));
};

/** `/calendar?month=YYYY-MM`: an endless calendar; every month links to the next one, for ever. */
export const calendar: Route = ({ url }) => {
  const match = /^(\d{4})-(\d{2})$/.exec(url.searchParams.get("month") ?? "2020-01");
  if (!match) return text("month must be YYYY-MM\n", 400);
  const [year, month] = [Number(match[1]), Number(match[2])];
  const next = month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, "0")}`;
  return html(page("Calendar", `<h1>${year}-${match[2]}</h1>\n<a href="/calendar?month=${next}">next month</a>`));
};

/** The text of `/latin1`, before it is encoded as ISO-8859-1. */
export const LATIN1_TEXT = "Café crème à la carte: ½ price, £5, déjà vu";

/** `/latin1`: an HTML page encoded as ISO-8859-1, which the Content-Type says. */
export const latin1: Route = () => {
  const source = page("Latin-1", `<h1>${LATIN1_TEXT}</h1>`);
  const bytes = Uint8Array.from(source, (char) => char.charCodeAt(0));
  return new Response(bytes, { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
};

/**
 * `/markup`: links where parsers disagree: inside `<template>` (no part of the document, in a browser), inside an SVG
 * `<clipPath>` (an element whose name keeps its capital P), and a plain one.
 */
export const markup: Route = () =>
  html(page(
    "Markup",
    `<a href="/links/plain.html">plain</a>
<template><a href="/links/in-template.html">in a template</a></template>
<svg width="10" height="10"><clipPath id="clip"><a href="/links/in-clip.html">in a clipPath</a></clipPath></svg>`,
  ));

/** `/plain-links`: text that looks like a page with a link, served as text/plain (`?type=html`: as text/html). */
export const plainLinks: Route = ({ url }) => {
  const type = url.searchParams.get("type") === "html" ? HTML : "text/plain; charset=utf-8";
  return new Response('<a href="/links/from-text.html">a link in a text file</a>\n', {
    headers: { "content-type": type },
  });
};
