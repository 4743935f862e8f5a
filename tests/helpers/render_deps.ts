/** What renderInTab needs from a crawl, for tests that drive a tab directly: documents fetched with fetch(). */
import type { RenderDeps } from "../../src/browser/render.ts";
import { makeResponse } from "../../src/spider/response.ts";
import { Spider } from "../../src/spider/spider.ts";

export function renderDeps(overrides: Partial<RenderDeps> = {}): RenderDeps {
  return {
    spider: new (class extends Spider {
      override parse() {}
    })(),
    jar: undefined,
    uploadDir: null,
    maxRedirects: 5,
    blockTypes: new Set(),
    blockUrl: () => false,
    proxy: undefined,
    fetchDocument: async (request) => {
      const answer = await fetch(request.url, { redirect: "manual" });
      return makeResponse(request, {
        status: answer.status,
        headers: Object.fromEntries(answer.headers),
        body: new Uint8Array(await answer.arrayBuffer()),
      });
    },
    checkNavigation: () => Promise.resolve(undefined),
    count: () => {},
    ...overrides,
  };
}
