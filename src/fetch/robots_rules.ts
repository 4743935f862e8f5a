/**
 * robots.txt read and matched as RFC 9309 says, held to Google's own test suite (tests/fixtures/google-robotstxt):
 * groups of one or more user-agent lines and their allow/disallow rules, groups for one agent merged, the `*` group
 * when none names us; the longest matching rule wins, allow on a tie; `*` matches any run of characters and a final
 * `$` the end. Google's leniencies are kept where the suite has them: a missing colon, misspelt `disallow`, a value
 * up to its first space for a user agent, lines cut at 16,664 bytes, a rule ending in `/index.html` also allowing its
 * directory.
 *
 * Rules and paths are compared in one canonical form, because the URLs Netweir checks come from the WHATWG URL
 * parser, which writes some characters encoded (`'` in a query as `%27`, `^` in a path as `%5E` in new runtimes) and
 * leaves others as they are (`[`, `]`, `|`), while a rule is written by hand. In that form a percent-encoded
 * unreserved character is decoded (RFC 9309 2.2.2), other escapes get upper-case hex, and every character that may
 * not stand bare in an RFC 3986 path or query (space, `"`, `<`, `>`, `[`, `\`, `]`, `^`, `` ` ``, `{`, `|`, `}`,
 * controls, non-ASCII as UTF-8) and `'` are percent-encoded: `Disallow: /a[1]` matches `/a[1]` and `/a%5B1%5D`.
 * robots-parser encoded a rule one way and the URL another, so such rules never matched.
 */

/** One allow or disallow rule, its pattern in canonical form. */
interface Rule {
  allow: boolean;
  pattern: string;
}

/** The rules and Crawl-delay of the groups for one user agent, merged. */
interface Group {
  rules: Rule[];
  crawlDelay: number | undefined;
}

/** Google cuts lines at 8 × 2,083 bytes (eight of the longest URLs browsers took) and keeps one byte less. */
const MAX_LINE = 2083 * 8 - 1;

/** Names of the lines read, Google's misspellings included. */
const KEYS: Record<string, "user-agent" | "allow" | "disallow" | "sitemap" | "crawl-delay"> = {
  "user-agent": "user-agent",
  "useragent": "user-agent",
  "user agent": "user-agent",
  "allow": "allow",
  "disallow": "disallow",
  "dissallow": "disallow",
  "dissalow": "disallow",
  "disalow": "disallow",
  "diasllow": "disallow",
  "disallaw": "disallow",
  "sitemap": "sitemap",
  "site-map": "sitemap",
  "crawl-delay": "crawl-delay",
};

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/** What stays bare: unreserved, the sub-delimiters but `'`, `:`, `@`, `/`, `?`, `%` (when not an escape), `*` and `$`. */
const BARE = /[A-Za-z0-9\-._~!$&()*+,;=:@/?%]/;
const HEX = "0123456789ABCDEF";

/**
 * `text` (a rule's pattern, or a URL's path and query) in the canonical form both are compared in (see the module's
 * comment). Google's suite calls this MaybeEscapePattern.
 */
export function canonicalPath(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "%" && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      const decoded = String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      out += UNRESERVED.test(decoded) ? decoded : "%" + text.slice(i + 1, i + 3).toUpperCase();
      i += 2;
    } else if (char.charCodeAt(0) < 0x80 && BARE.test(char)) {
      out += char;
    } else {
      const point = text.codePointAt(i)!;
      if (point > 0xffff) i++;
      for (const byte of new TextEncoder().encode(String.fromCodePoint(point))) {
        out += "%" + HEX[byte >> 4] + HEX[byte & 15];
      }
    }
  }
  return out;
}

/**
 * Whether `pattern` matches the start of `path` (both canonical): `*` any run of characters, `$` at the end the end
 * of the path. The positions the pattern's prefix can end at are kept as a sorted list, as Google's matcher does.
 */
export function patternMatches(pattern: string, path: string): boolean {
  const end = pattern.length;
  let positions = [0];
  for (let p = 0; p < end; p++) {
    const char = pattern[p];
    if (char === "$" && p === end - 1) return positions[positions.length - 1] === path.length;
    if (char === "*") {
      const first = positions[0];
      positions = [];
      for (let at = first; at <= path.length; at++) positions.push(at);
      continue;
    }
    const next: number[] = [];
    for (const at of positions) if (at < path.length && path[at] === char) next.push(at + 1);
    if (next.length === 0) return false;
    positions = next;
  }
  return true;
}

/** A robots.txt file read into groups, for one crawl's user agent at a time. */
export class RobotsRules {
  /** Groups by lower-case product token, `*` among them. */
  readonly #groups = new Map<string, Group>();
  readonly #sitemaps: string[] = [];

  constructor(text: string) {
    // A byte order mark is no part of the first line; Google skips a partial one too (decoded, one U+FFFD).
    const body = text.replace(/^(?:\uFEFF|\uFFFD)/, "");
    let agents: Group[] = [];
    /** Whether the current group has had a rule, so that the next user-agent line starts another. */
    let hadRule = false;
    for (const raw of body.split(/\r\n|\r|\n/)) {
      const line = cutLine(raw);
      const parsed = keyAndValue(line);
      if (parsed === undefined) continue;
      const [key, value] = parsed;
      if (key === "user-agent") {
        if (hadRule) {
          agents = [];
          hadRule = false;
        }
        const token = agentToken(value);
        if (token === "") continue;
        let group = this.#groups.get(token);
        if (group === undefined) this.#groups.set(token, group = { rules: [], crawlDelay: undefined });
        if (!agents.includes(group)) agents.push(group);
      } else if (key === "allow" || key === "disallow") {
        hadRule = true;
        if (value === "") continue;
        const allow = key === "allow";
        const pattern = canonicalPath(value);
        for (const group of agents) {
          group.rules.push({ allow, pattern });
          // Google: "/dir/index.html" allowed allows "/dir/" too.
          if (allow && pattern.endsWith("/index.html")) {
            group.rules.push({ allow, pattern: pattern.slice(0, -"index.html".length) + "$" });
          }
        }
      } else if (key === "sitemap") {
        if (value !== "") this.#sitemaps.push(value);
      } else if (key === "crawl-delay") {
        const seconds = Number(value);
        if (value === "" || !Number.isFinite(seconds) || seconds < 0) continue;
        for (const group of agents) group.crawlDelay ??= seconds;
      }
    }
  }

  /** The group rules apply to for the first of `tokens` (lower case, most specific first) that has one, else `*`. */
  agentFor(tokens: readonly string[]): string | undefined {
    const named = tokens.find((token) => token !== "*" && this.#groups.has(token));
    return named ?? (this.#groups.has("*") ? "*" : undefined);
  }

  /** Whether the group of `agent` (from agentFor) allows `pathAndQuery` (a URL's path and query as written). */
  isAllowed(agent: string | undefined, pathAndQuery: string): boolean {
    const group = agent === undefined ? undefined : this.#groups.get(agent);
    if (group === undefined || group.rules.length === 0) return true;
    const path = canonicalPath(pathAndQuery === "" ? "/" : pathAndQuery);
    let allowed = -1;
    let disallowed = -1;
    for (const rule of group.rules) {
      const length = rule.pattern.length;
      if (length <= (rule.allow ? allowed : disallowed)) continue;
      if (!patternMatches(rule.pattern, path)) continue;
      if (rule.allow) allowed = length;
      else disallowed = length;
    }
    return allowed >= disallowed;
  }

  /** The Crawl-delay of the group of `agent`, in seconds, when it gives one. */
  crawlDelay(agent: string | undefined): number | undefined {
    return agent === undefined ? undefined : this.#groups.get(agent)?.crawlDelay;
  }

  /** The Sitemap: lines' URLs, as written, wherever they are in the file. */
  sitemaps(): string[] {
    return [...this.#sitemaps];
  }
}

/** A line as Google reads it: at most MAX_LINE bytes of UTF-8. */
function cutLine(line: string): string {
  if (line.length * 3 <= MAX_LINE) return line;
  const bytes = new TextEncoder().encode(line);
  if (bytes.length <= MAX_LINE) return line;
  return new TextDecoder().decode(bytes.subarray(0, MAX_LINE)).replace(/\uFFFD$/, "");
}

/** A line's name (one of KEYS') and value, comments and surrounding space dropped; undefined for anything else. */
function keyAndValue(line: string): [string, string] | undefined {
  const hash = line.indexOf("#");
  const content = trimSpace(hash === -1 ? line : line.slice(0, hash));
  if (content === "") return undefined;
  let name: string;
  let value: string;
  const colon = content.indexOf(":");
  if (colon !== -1) {
    name = content.slice(0, colon);
    value = content.slice(colon + 1);
  } else {
    // Google: "disallow /" means what it says; a name and a value apart by white space, nothing else.
    const space = /^(\S+)\s+(\S+)$/.exec(content);
    if (space === null) return undefined;
    [, name, value] = space;
  }
  const key = KEYS[trimSpace(name).toLowerCase()];
  return key === undefined ? undefined : [key, trimSpace(value)];
}

/**
 * `text` without the spaces and tabs around it. Not String.trim, which takes a byte order mark for white space too:
 * a line starting with one is no directive Google knows, and none here.
 */
function trimSpace(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, "");
}

/** The product token a user-agent line names, lower case: its value up to a space or `/` ("*" for the global group). */
function agentToken(value: string): string {
  if (value.startsWith("*")) return "*";
  return value.split(/[\s/]/)[0].toLowerCase();
}
