/** A downloaded response: what the fetch layer hands the engine, and what a Page is built from. */
import type { Request } from "./request.ts";
import { HeaderList } from "../runtime/header_list.ts";

/** A downloaded response: what a Page is built from, and what a middleware may answer a request with. */
export interface FetchedResponse {
  /** The final URL, after redirects. */
  url: string;
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Headers;
  /** The body, decompressed. */
  body: Uint8Array;
  /** The request this answers (the original one, before redirects). */
  request: Request;
  /** URLs redirected through, in order, when there were redirects. */
  redirects: string[];
  /** Seconds from sending the request to the end of the body. */
  latency: number;
  /**
   * Where it came from: the network, the HTTP cache (`cache` setting), a middleware that answered it itself, or the
   * browser (a rendered page: the body is the DOM as it stood after the request's steps).
   */
  source: "network" | "cache" | "middleware" | "browser";
  /**
   * For a response from the network: the protocol that carried it, by its ALPN name (`h2`, `http/1.1`, `http/1.0`);
   * undefined where the client could not tell.
   */
  protocol?: string;
  /** For a response from the network: the method and headers of the last request sent (after redirects). */
  sent?: { method: string; headers: Headers };
  /** For a rendered page: what its steps gave back. */
  rendered?: Rendered;
  /** For a response from the network that came through redirects: each redirect answered on the way, in order. */
  hops?: RedirectHop[];
}

/** One redirect on the way to a response: the request sent and the 3xx answer, as the archives keep them. */
export interface RedirectHop {
  /** The URL requested. */
  url: string;
  /** The 3xx status. */
  status: number;
  /** The redirect's headers. */
  headers: Headers;
  /** The redirect's body, decompressed (usually a line of HTML or nothing). */
  body: Uint8Array;
  /** The request as sent. */
  sent: { method: string; headers: Headers; body?: string };
  /** Epoch ms when the request was sent. */
  at: number;
  /** The protocol that carried it (`h2`, `http/1.1`), when known. */
  protocol?: string;
}

/** What a rendered page's steps gave back (C23), in step order. */
export interface Rendered {
  /** The JSON result of each `evaluate` step. */
  evaluated: unknown[];
  /** The PNG bytes of each `screenshot` step. */
  screenshots: Uint8Array[];
  /** The PDF bytes of each `pdf` step. */
  pdfs: Uint8Array[];
  /**
   * The main document as the server sent it, kept for a `render: "auto"` request only: its callback runs on it too,
   * to find out whether rendering changed anything (src/engine/render_compare.ts).
   */
  document?: FetchedResponse;
}

/** Builds a response a middleware can answer a request with, instead of fetching it. */
export function makeResponse(
  request: Request,
  init: { status?: number; headers?: Record<string, string>; body?: string | Uint8Array; url?: string },
): FetchedResponse {
  const body = typeof init.body === "string" ? new TextEncoder().encode(init.body) : init.body ?? new Uint8Array();
  return {
    url: init.url ?? request.url,
    status: init.status ?? 200,
    headers: new HeaderList(init.headers),
    body,
    request,
    redirects: [],
    latency: 0,
    source: "middleware",
  };
}
