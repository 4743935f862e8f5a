/**
 * Chromium's own requests for a page's icon (`/favicon.ico`, or the page's `<link rel=icon>`): refused before they
 * leave the browser, and their end made known to puppeteer when Chromium never reports it.
 *
 * The browser asks for the icon once the page has loaded, for a tab strip a headless window does not have. It is no
 * part of what a crawl renders, yet it cost the site one request a page (a tab's fresh browser context has no icon
 * cache). And when the tab's next navigation began before that request ended, Chromium never reported its end:
 * puppeteer's page kept it as in flight, with its subscriptions and its entry in puppeteer's request maps, for the
 * tab's life (about 0.4 requests a page on rustdoc; docs/design/browser.md).
 *
 * Refusing the request (`Fetch.failRequest` as it is paused) ends it at once, and Chromium reports that end, unless
 * the next navigation began within that round trip: then the end is lost all the same (seen for 3 or 4 pages of 40
 * that a tab rendered back to back). So the tab also notes each icon it refused, and when its main frame commits a new
 * document, ends for puppeteer those of the documents before that Chromium left unreported, with the
 * `Network.loadingFailed` Chromium would have sent. A document that is gone reports nothing more.
 *
 * No launch switch of Chromium 156 stops icon fetching, and no DevTools pattern names icons, so every request of
 * resource type `Other` is paused (workers' scripts, plugins' and generic sub-resources: few per page) and told apart
 * here: an icon is the one kind of `Other` request that asks for an image (its `Accept` header starts with `image/`,
 * as an `<img>`'s does; a worker's script accepts anything).
 */
import type { CDPSession, Page, Protocol } from "puppeteer-core";

/** The pattern that pauses icon requests (with the rest of their resource type) for {@link isIconRequest}. */
export const ICON_PATTERN: Protocol.Fetch.RequestPattern = { resourceType: "Other", requestStage: "Request" };

/** Whether a paused request is Chromium's fetch of the page's icon. */
export function isIconRequest(event: Protocol.Fetch.RequestPausedEvent): boolean {
  if (event.resourceType !== "Other") return false;
  const accept = Object.entries(event.request.headers).find(([name]) => name.toLowerCase() === "accept")?.[1];
  return accept !== undefined && accept.startsWith("image/");
}

/** One tab's refused icon requests whose end Chromium has not reported yet. */
export class IconRequests {
  /** Network request ids. */
  readonly #open = new Set<string>();

  /** Refuses a paused icon request and notes it until its end is seen. */
  refuse(session: CDPSession, event: Protocol.Fetch.RequestPausedEvent): void {
    if (event.networkId) this.#open.add(event.networkId);
    session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" }).catch(() => {});
  }

  /** Chromium reported a request's end (`Network.loadingFailed` or `loadingFinished`). */
  ended(requestId: string): void {
    this.#open.delete(requestId);
  }

  /**
   * The main frame committed a new document. Icons are asked for after a document's load, so every icon still open
   * is one of a document the tab has left, whose end Chromium will not report: puppeteer hears of it as Chromium
   * would have told it (should Chromium's own report come after all, puppeteer ignores a request it has forgotten).
   */
  committed(page: Page): void {
    if (this.#open.size === 0) return;
    // puppeteer's own session of the page, which its request tracking listens to; it has no public name.
    const client = (page as unknown as { _client(): CDPSession })._client();
    for (const requestId of this.#open) {
      const ended: Protocol.Network.LoadingFailedEvent = {
        requestId,
        timestamp: 0,
        type: "Other",
        // What Chromium says of a request refused while paused.
        errorText: "net::ERR_BLOCKED_BY_CLIENT.Inspector",
        blockedReason: "inspector",
      };
      client.emit("Network.loadingFailed", ended);
    }
    this.#open.clear();
  }
}
