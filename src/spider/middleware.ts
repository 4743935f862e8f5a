/** Request and response middlewares (C12): code that sits between the engine and the network. */
import type { FetchedResponse } from "./response.ts";
import type { Request } from "./request.ts";
import type { Spider } from "./spider.ts";

/**
 * Sees every request before it is fetched. Return the request (or a changed one) to fetch it, null to drop it, or
 * a response (see `makeResponse`) to answer it without fetching.
 */
export interface RequestMiddleware {
  /** Called with each request before it is fetched. */
  processRequest(
    request: Request,
    spider: Spider,
  ): Request | FetchedResponse | null | undefined | Promise<Request | FetchedResponse | null | undefined>;
}

/**
 * Sees every response before its callback. Return the response (or a changed one), or a request to fetch
 * instead (it is pushed to the queue and this response is dropped).
 */
export interface ResponseMiddleware {
  /** Called with each response before its callback sees it. */
  processResponse(
    response: FetchedResponse,
    spider: Spider,
  ): FetchedResponse | Request | Promise<FetchedResponse | Request>;
}
