/**
 * One cookie jar for HTTP and the browser, both ways. Before a page is rendered, and before each of its documents
 * is handed to the tab, the jar's cookies for that URL go into the browser; after the page is rendered, the
 * browser's cookies for the URLs it visited come back into the jar. So a login made over plain HTTP carries into
 * rendered pages, and a cookie a page's script sets is sent by later plain requests.
 */
import type { CDPSession, Protocol } from "puppeteer-core";
import { Cookie, type CookieJar } from "tough-cookie";

/** The jar's cookies for `url`, in the browser. */
export async function cookiesToBrowser(jar: CookieJar, session: CDPSession, url: string): Promise<void> {
  const cookies = await jar.getCookies(url, { allPaths: true });
  if (cookies.length === 0) return;
  const params: Protocol.Network.CookieParam[] = cookies.map((cookie) => {
    const param: Protocol.Network.CookieParam = {
      name: cookie.key,
      value: cookie.value,
      path: cookie.path ?? "/",
      secure: cookie.secure,
      httpOnly: cookie.httpOnly,
    };
    // A host-only cookie is set through a URL (the browser then keeps it host-only), a domain cookie by domain.
    if (cookie.hostOnly) param.url = `${cookie.secure ? "https" : "http"}://${cookie.domain}${cookie.path ?? "/"}`;
    else param.domain = `.${cookie.domain}`;
    if (cookie.expires instanceof Date) param.expires = cookie.expires.getTime() / 1000;
    const sameSite = cookie.sameSite?.toLowerCase();
    if (sameSite === "strict" || sameSite === "lax" || sameSite === "none") {
      param.sameSite = (sameSite[0].toUpperCase() + sameSite.slice(1)) as Protocol.Network.CookieSameSite;
    }
    return param;
  });
  await session.send("Network.setCookies", { cookies: params });
}

/** The browser's cookies for `urls`, into the jar (replacing the jar's of the same name, domain and path). */
export async function cookiesFromBrowser(jar: CookieJar, session: CDPSession, urls: string[]): Promise<void> {
  const { cookies } = await session.send("Network.getCookies", { urls });
  for (const found of cookies) {
    const hostOnly = !found.domain.startsWith(".");
    const domain = hostOnly ? found.domain : found.domain.slice(1);
    const cookie = new Cookie({
      key: found.name,
      value: found.value,
      domain,
      path: found.path,
      secure: found.secure,
      httpOnly: found.httpOnly,
      hostOnly,
      expires: found.session || found.expires < 0 ? "Infinity" : new Date(found.expires * 1000),
      sameSite: found.sameSite?.toLowerCase(),
    });
    const url = `${found.secure ? "https" : "http"}://${domain}${found.path}`;
    // A cookie the jar would refuse for its own URL is the page's mistake, not a reason to fail the page.
    await jar.setCookie(cookie, url, { ignoreError: true });
  }
}
