/**
 * The parts of an http(s) URL as the URL parser writes it (a Request's `url`), found by string search instead of a
 * second parse. In that form the authority ends at the first `/` after `//` (a special URL always has a path), the
 * path at the first `?` or `#`, the query at the first `#`, and an `@` of the user info is the last one in the
 * authority (any other is percent-encoded).
 */

export interface HrefParts {
  /** `http://host:port`, as URL's `origin`. */
  origin: string;
  /** `host:port`, as URL's `host`. */
  host: string;
  /** As URL's `pathname`. */
  pathname: string;
  /** As URL's `search`: "" when there is no query or only a `?`. */
  search: string;
}

/**
 * The parts of `href`, a URL as the URL parser writes it (a Request's `url`). Other schemes than http(s), which
 * requests seldom have, are parsed.
 */
export function hrefParts(href: string): HrefParts {
  if (!href.startsWith("http://") && !href.startsWith("https://")) return new URL(href);
  const authorityStart = href.indexOf("//") + 2;
  let pathStart = href.indexOf("/", authorityStart);
  if (pathStart < 0) pathStart = href.length;
  const hash = href.indexOf("#", pathStart);
  const end = hash < 0 ? href.length : hash;
  const query = href.indexOf("?", pathStart);
  const queryStart = query < 0 || query > end ? end : query;
  const at = href.lastIndexOf("@", pathStart);
  const hostStart = at >= authorityStart ? at + 1 : authorityStart;
  const host = href.slice(hostStart, pathStart);
  return {
    origin: href.slice(0, authorityStart) + host,
    host,
    pathname: href.slice(pathStart, queryStart),
    search: end - queryStart > 1 ? href.slice(queryStart, end) : "",
  };
}
