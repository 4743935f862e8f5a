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

/** Logs for spider code (defined with the logger in src/log.ts; here for the spider API's imports). */
export type { Logger } from "../log.ts";
