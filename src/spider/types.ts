/** What callbacks, pipelines and middlewares exchange. */
import type { Request } from "./request.ts";

/** An item: a plain JSON object a callback produces. */
export type Item = Record<string, unknown>;

/** What a callback may return or yield: items, requests, or nothing. */
export type CallbackOutput = Item | Request | null | undefined | void;

/** A callback's whole result: one output, several, sync or async, or a (async) generator of them. */
export type CallbackResult =
  | CallbackOutput
  | CallbackOutput[]
  | Iterable<CallbackOutput>
  | AsyncIterable<CallbackOutput>
  | Promise<CallbackOutput | CallbackOutput[] | Iterable<CallbackOutput> | AsyncIterable<CallbackOutput>>;

/** Logs for spider code; lines go to standard error with the crawl's level. */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warning(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}
