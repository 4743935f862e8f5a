/**
 * The one rule for "this host belongs to that domain", used by allowed_domains (engine/admission.ts), a link
 * extractor's allow/deny domains and the hosts httpAuth credentials go to (fetch/credentials.ts).
 */

/**
 * Whether `host` is `domain` or a subdomain of it: "example.com" holds "a.example.com", never "badexample.com".
 * An IP address has no parent domains, so it only matches itself ("0.0.1" does not hold "127.0.0.1"). Case, a
 * trailing dot on either, leading dots on the domain and the brackets of an IPv6 literal are ignored.
 */
export function hostInDomain(host: string, domain: string): boolean {
  return inParent(plain(host), parentOf(domain));
}

/** Whether `host` is in any of `domains` (see {@link hostInDomain}); false for none. */
export function hostInDomains(host: string, domains: readonly string[]): boolean {
  return domains.some((domain) => hostInDomain(host, domain));
}

/**
 * {@link hostInDomains} with the domains written out once: for a list asked about every request (allowed_domains,
 * a link extractor's domains), so only the host is normalised on each call.
 */
export function domainMatcher(domains: readonly string[]): (host: string) => boolean {
  const parents = domains.map(parentOf).filter((parent) => parent !== "");
  if (parents.length === 0) return () => false;
  return (host) => {
    const name = plain(host);
    return parents.some((parent) => inParent(name, parent));
  };
}

function parentOf(domain: string): string {
  return plain(domain).replace(/^\.+/, "");
}

function inParent(name: string, parent: string): boolean {
  if (name === "" || parent === "") return false;
  if (isIpAddress(name)) return name === parent;
  return name === parent || name.endsWith("." + parent);
}

function plain(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.+$/, "");
}

/** A dotted IPv4 address, or an IPv6 one (the only hosts with a colon once a port is taken off). */
function isIpAddress(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(":");
}
