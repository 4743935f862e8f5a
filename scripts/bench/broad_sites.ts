/**
 * The web of scripts/bench/broad.ts: SITES small sites, each at its own loopback address (Linux routes all of
 * 127.0.0.0/8 to lo, so one server listening on 0.0.0.0 answers for every one of them; nothing leaves the
 * machine), each answer held back by a latency. One process, Deno.serve: it is the benchmark's server, run as a
 * process of its own so its CPU is measured apart from the crawler's.
 *
 *   deno run -A scripts/bench/broad_sites.ts SITES LATENCY_MS [PAGES=25] [--names]   (prints "port N", serves until
 *                                                                                   killed)
 *
 * With --names, the pages link to other sites by name (site-1.test ...; see siteName) rather than by address, and a
 * site answers under its name too: the crawl then needs a DNS server that knows the names (broad.ts runs one).
 *
 * Site i (see siteAddress) has PAGES pages: / and /p/1 ... /p/PAGES-1. Every page links to five pages of its own site
 * (fewer when the site has fewer),
 * to the home pages of two other sites, and to /private/N, which each site's robots.txt disallows. Some sites are
 * awkward on purpose: one in 50 answers three times slower, one in 50 answers every page with 503, one in 100 has no
 * robots.txt (404).
 */

/** Pages per site, unless the third argument says otherwise. */
export const DEFAULT_PAGES = 25;

/** Site i's address: 127.x.y.z from 127.1.0.1 on, never a .0 or .255 last part. */
export function siteAddress(i: number): string {
  return `127.${1 + Math.floor(i / 62_500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`;
}

/** Site i's host name, in the .test domain no DNS on the internet answers (RFC 2606). */
export function siteName(i: number): string {
  return `site-${i + 1}.test`;
}

/** The site an address or a name stands for, or -1. */
function siteIndex(host: string): number {
  const named = /^site-(\d+)\.test$/.exec(host);
  if (named) return Number(named[1]) - 1;
  const parts = host.split(".").map(Number);
  if (parts.length !== 4 || parts[0] !== 127) return -1;
  return (parts[1] - 1) * 62_500 + parts[2] * 250 + parts[3] - 1;
}

/** What kind of site i is. */
export function siteKind(i: number): "slow" | "failing" | "no-robots" | "plain" {
  if (i % 50 === 7) return "slow";
  if (i % 50 === 13) return "failing";
  if (i % 100 === 29) return "no-robots";
  return "plain";
}

const FILLER = "<p>" + "Broad crawls visit many sites a few pages each. ".repeat(30) + "</p>";

function page(i: number, k: number, sites: number, port: number, pages: number, hostOf: (j: number) => string): string {
  const own = [1, 2, 3, 4, 5].slice(0, Math.max(0, pages - 1)).map((step) => {
    const target = (k + step) % pages;
    return `<li><a href="${target === 0 ? "/" : `/p/${target}`}">page ${target}</a></li>`;
  });
  const others = [(i * 7 + k + 1) % sites, (i * 13 + k + 5) % sites].map((j) =>
    `<li><a href="http://${hostOf(j)}:${port}/">site ${j}</a></li>`
  );
  return `<!doctype html><html><head><title>Site ${i} page ${k}</title></head><body><h1>Site ${i}, page ${k}</h1>` +
    `<ul>${own.join("")}</ul><ul>${others.join("")}</ul><a href="/private/${k}">private</a>${FILLER}</body></html>`;
}

/** Starts the sites; resolves with the port. */
export function serveSites(sites: number, latencyMs: number, pages = DEFAULT_PAGES, names = false): Promise<number> {
  const hostOf = names ? siteName : siteAddress;
  return new Promise((resolve) => {
    Deno.serve({
      hostname: "0.0.0.0",
      port: 0,
      onListen: ({ port }) => resolve(port),
      // Nothing to log per request: the server's own CPU is part of what is measured.
    }, async (request, info) => {
      const url = new URL(request.url);
      const i = siteIndex(url.hostname);
      const remote = (info.remoteAddr as Deno.NetAddr).hostname;
      if (!remote.startsWith("127.") || i < 0 || i >= sites) return new Response("no such site", { status: 404 });
      const kind = siteKind(i);
      await new Promise((done) => setTimeout(done, kind === "slow" ? latencyMs * 3 : latencyMs));
      if (url.pathname === "/robots.txt") {
        if (kind === "no-robots") return new Response("not found", { status: 404 });
        return new Response("User-agent: *\nDisallow: /private/\n", { headers: { "content-type": "text/plain" } });
      }
      if (kind === "failing") return new Response("unavailable", { status: 503 });
      const k = url.pathname === "/" ? 0 : Number(url.pathname.slice(3));
      if (!(url.pathname === "/" || /^\/p\/\d+$/.test(url.pathname)) || !(k >= 0 && k < pages)) {
        return new Response("not found", { status: 404 });
      }
      const html = page(i, k, sites, Number(url.port), pages, hostOf);
      return new Response(html, { headers: { "content-type": "text/html" } });
    });
  });
}

if (import.meta.main) {
  const [sites, latency, pages] = Deno.args.filter((arg) => !arg.startsWith("--")).map(Number);
  const port = await serveSites(sites, latency, pages || DEFAULT_PAGES, Deno.args.includes("--names"));
  console.log(`port ${port}`);
}
