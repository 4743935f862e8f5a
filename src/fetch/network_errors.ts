/**
 * What went wrong when a request got no HTTP answer, in words: Deno's and Node's fetch both throw a TypeError "fetch
 * failed" and keep the reason in the error's cause (Deno as text, Node as an error code), so a log line that says
 * only "fetch failed" leaves the user guessing between a typo in the host, a server that is down and a broken
 * certificate. The whole cause chain is read, and the failure named.
 */

/** A kind of network failure, with the words a log line uses for it. */
export type NetworkFailure = "refused" | "dns" | "tls" | "reset" | "closed" | "timeout" | "unreachable" | "other";

/** Patterns over the cause chain's codes and messages, first match wins (TLS before reset: Node reports a TLS
 * handshake cut short as ECONNRESET). */
const KINDS: Array<[NetworkFailure, RegExp]> = [
  ["refused", /ECONNREFUSED|connection refused/i],
  [
    "dns",
    /ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|dns error|failed to lookup address|name or service not known|no address associated|nodename nor servname/i,
  ],
  [
    "tls",
    /\btls\b|\bssl\b|certificate|CERT_|ERR_TLS|handshake|self[- ]signed|corrupt message|InvalidContentType|UnknownIssuer|wrong version number|EPROTO/i,
  ],
  ["reset", /ECONNRESET|connection reset/i],
  [
    "closed",
    /UND_ERR_SOCKET|other side closed|connection closed before message completed|socket hang up|UND_ERR_CLOSED|unexpected end of file|incomplete message/i,
  ],
  ["timeout", /ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|timed out/i],
  ["unreachable", /ENETUNREACH|EHOSTUNREACH|network is unreachable|no route to host/i],
];

/** Every code and message along an error's cause chain, joined, and the innermost message. */
function causeChain(error: unknown): { text: string; innermost: string } {
  const parts: string[] = [];
  let innermost = "";
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && current !== null && !seen.has(current);) {
    seen.add(current);
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === "string") parts.push(code);
    if (typeof message === "string" && message !== "") {
      parts.push(message);
      // Deno's messages start with what was being done; what went wrong is at the end.
      innermost = message.replace(/^error sending request (?:for url|from) .*?: client error \([^)]*\): /, "");
    } else if (typeof current !== "object") innermost = String(current);
    current = cause;
  }
  return { text: parts.join(" | "), innermost };
}

/**
 * What to do about a server certificate the runtime does not trust (a test server's own, self-signed or from a CA of
 * one's own): the runtimes' own ways to trust one, since every HTTPS connection of the crawl goes through them.
 * rustls (Deno) refuses a certificate that says it is a CA as a server's, which `openssl req -x509` makes by default.
 */
function certificateHint(innermost: string): string {
  if (/CaUsedAsEndEntity/i.test(innermost)) {
    return " (the server's certificate is marked as a CA, which Deno refuses for a server: make it with " +
      "-addext basicConstraints=critical,CA:FALSE)";
  }
  // A certificate for another name: trusting a CA would not help; the site (or the name that led to it) is wrong.
  if (/NotValidForName|not valid for name|altnames|ALTNAME/i.test(innermost)) {
    return " (the certificate is for another name: the name may lead to the wrong server, or the server to the " +
      "wrong certificate)";
  }
  if (!/UnknownIssuer|self[- ]signed|unable to (?:get|verify)|CERT_|certificate/i.test(innermost)) return "";
  return " (to trust a certificate of your own, or its CA: DENO_CERT=ca.pem with Deno, NODE_EXTRA_CA_CERTS=ca.pem " +
    "with Node)";
}

/** The kind of a network failure. */
export function networkFailureKind(error: unknown): NetworkFailure {
  // The DNS cache's failure may carry its server's (a refused or unreachable DNS server): it is still a lookup's.
  if (namedErrorIn(error, "DnsLookupError") !== undefined) return "dns";
  const { text } = causeChain(error);
  return KINDS.find(([, pattern]) => pattern.test(text))?.[0] ?? "other";
}

/** A sentence saying why `url` could not be fetched: "connection refused by 127.0.0.1:6000", ... */
export function describeNetworkFailure(error: unknown, url: string): string {
  // A SOCKS proxy's failure says itself which proxy and why (src/runtime/socks.ts): the target is not to blame.
  const proxyFailure = proxyErrorIn(error);
  if (proxyFailure !== undefined) return proxyFailure;
  const parsed = URL.parse(url);
  const host = parsed?.hostname ?? url;
  const address = parsed ? `${parsed.hostname}:${parsed.port || (parsed.protocol === "https:" ? "443" : "80")}` : url;
  const kind = networkFailureKind(error);
  const { innermost } = causeChain(error);
  switch (kind) {
    case "refused":
      return `connection refused by ${address} (nothing listens there, or a firewall said no)`;
    case "dns":
      return dnsFailure(error, host);
    case "tls":
      return `TLS handshake with ${address} failed: ${innermost}${certificateHint(innermost)}`;
    case "reset":
      return `connection reset by ${address}`;
    case "closed":
      return `${address} closed the connection without an answer`;
    case "timeout":
      return `connecting to ${address} timed out`;
    case "unreachable":
      return `${address} is unreachable (no route to it)`;
    default:
      return innermost || "no answer";
  }
}

/**
 * A failed lookup in words. The crawl's DNS cache (src/runtime/dns/resolver.ts) says why: a name that does not exist
 * keeps the sentence the runtimes' own lookups get; one whose DNS did not answer is not said to be "not found".
 */
function dnsFailure(error: unknown, host: string): string {
  const lookup = namedErrorIn(error, "DnsLookupError") as { code?: string; reason?: string } | undefined;
  if (lookup === undefined) return `host name ${host} not found (DNS lookup failed)`;
  if (lookup.code === "ENOTFOUND") return `host name ${host} not found (DNS lookup failed: ${lookup.reason})`;
  return `DNS lookup of ${host} failed: ${lookup.reason}`;
}

/** The first error named `name` along the cause chain. */
function namedErrorIn(error: unknown, name: string): Error | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    if (current.name === name) return current;
  }
  return undefined;
}

/** The message of a ProxyError along the cause chain, if there is one. */
function proxyErrorIn(error: unknown): string | undefined {
  return namedErrorIn(error, "ProxyError")?.message;
}
