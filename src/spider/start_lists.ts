/**
 * The spider's lists of where to go, checked before anything is fetched: `startUrls`, `sitemapUrls` and
 * `allowedDomains`. Written wrong, each made a crawl that did nothing and exited 0: a string instead of a list was
 * iterated letter by letter (`Request URL is not an absolute URL: "h"`), a start URL without `http://` was dropped as
 * another scheme (`localhost:8000/x` parses as the scheme `localhost:`), and an allowed domain written as a URL
 * matched no host, so every request was dropped as offsite.
 *
 * A list that is not a list of strings, or a start URL that could never be fetched, is refused (the spider is what
 * the user gave: exit 2). An allowed domain that matches no host is a warning, as Scrapy gives one: the crawl runs,
 * and drops what the list keeps out.
 */

/** The lists whose type is checked: each must be an array of strings. */
const LISTS = ["startUrls", "sitemapUrls", "allowedDomains"] as const;
/** The lists of URLs, each fetched as it is. */
const URL_LISTS: ReadonlyArray<{ list: "startUrls" | "sitemapUrls"; what: string }> = [
  { list: "startUrls", what: "start URL" },
  { list: "sitemapUrls", what: "sitemap URL" },
];

/** Why one URL of a start list could never be fetched, or undefined when it can. */
function urlProblem(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:")) return undefined;
  // "localhost:8000/x" parses, with the host as its scheme; "example.com/x" does not parse. Either is a host.
  const hostFirst = /^[^/:]/.test(url) && !url.includes("://") && (!parsed || /^[^:/]+:\d+(?:[/?#]|$)/.test(url));
  const guess = hostFirst ? URL.parse(`http://${url}`) : null;
  if (guess && (guess.hostname.includes(".") || guess.hostname === "localhost" || guess.port !== "")) {
    return `has no scheme (did you mean "http://${url}"?)`;
  }
  if (parsed) return `has the scheme ${parsed.protocol}; only http: and https: are fetched`;
  return "is not an absolute URL: start with http:// or https://";
}

/**
 * The first problem with the spider's start lists, as a sentence naming the list, or undefined. `spiderName` is how
 * the sentence names the spider.
 */
export function startListProblem(spider: object, spiderName: string): string | undefined {
  const lists = spider as Record<string, unknown>;
  for (const list of LISTS) {
    const value = lists[list];
    if (value === undefined || value === null) continue;
    if (typeof value === "string") {
      return `spider ${spiderName}: ${list} is a string; it must be a list: ${list} = [${JSON.stringify(value)}]`;
    }
    if (!Array.isArray(value)) return `spider ${spiderName}: ${list} must be a list of strings, not ${typeName(value)}`;
    const index = value.findIndex((entry) => typeof entry !== "string");
    if (index !== -1) {
      return `spider ${spiderName}: ${list}[${index}] is ${typeName(value[index])}, not a string`;
    }
  }
  for (const { list, what } of URL_LISTS) {
    for (const url of (lists[list] ?? []) as string[]) {
      const problem = urlProblem(url);
      if (problem) return `spider ${spiderName}: ${what} ${JSON.stringify(url)} ${problem}`;
    }
  }
  return undefined;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}

/** Why an allowed domain matches no host, and what to write instead; undefined when it is a domain. */
function domainProblem(domain: string): string | undefined {
  if (domain.includes("://")) {
    const host = URL.parse(domain)?.host;
    return `is a URL, not a domain, so it matches no host${host ? `; write ${JSON.stringify(host)}` : ""}`;
  }
  if (domain.includes("/")) {
    return `has a path, so it matches no host; write ${JSON.stringify(domain.slice(0, domain.indexOf("/")))}`;
  }
  if (domain.includes("*")) {
    return `has a wildcard, so it matches no host; write ${
      JSON.stringify(domain.replace(/^[*.]+/, ""))
    } (a domain holds its subdomains)`;
  }
  if (domain.trim() === "") return "is empty, so it matches no host";
  return undefined;
}

/** A warning for each allowed domain that matches no host, naming what to write instead. */
export function allowedDomainWarnings(spider: object, spiderName: string): string[] {
  const domains = (spider as { allowedDomains?: unknown }).allowedDomains;
  if (!Array.isArray(domains)) return [];
  return domains.flatMap((domain) => {
    const problem = typeof domain === "string" ? domainProblem(domain) : undefined;
    return problem ? [`spider ${spiderName}: allowedDomains entry ${JSON.stringify(domain)} ${problem}`] : [];
  });
}
