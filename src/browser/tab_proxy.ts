/** A request's proxy as a tab's browser context takes it (Chromium sets proxies per context). */

/** A proxy for a context of tabs: where to send traffic, and the login Chromium is to answer its 407 with. */
export interface TabProxy {
  /** The proxy URL as given (the key tabs are grouped by). */
  url: string;
  server: string;
  /** A SOCKS proxy with a login, which Chromium reaches through a relay that logs in for it. */
  socksLogin?: URL;
  username?: string;
  password?: string;
}

/**
 * Chromium's names for the SOCKS schemes: its socks5 always lets the proxy resolve names (socks5h's meaning); its
 * socks4 sends addresses it resolved itself, which a SOCKS4a proxy takes as well.
 */
const CHROMIUM_SCHEMES: Record<string, string> = { "socks5:": "socks5:", "socks5h:": "socks5:", "socks4a:": "socks4:" };

/** Parses a proxy URL into what Chromium's context takes. */
export function tabProxy(url: string): TabProxy {
  const parsed = new URL(url);
  const socks = CHROMIUM_SCHEMES[parsed.protocol];
  if (socks !== undefined && (parsed.username || parsed.password)) {
    // Chromium cannot log in to a SOCKS proxy: a relay on 127.0.0.1 logs in for it (src/runtime/socks_relay.ts).
    return { url, server: "", socksLogin: new URL(url) };
  }
  return {
    url,
    server: `${socks ?? parsed.protocol}//${parsed.host}`,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
  };
}
