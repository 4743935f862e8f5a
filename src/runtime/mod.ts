/**
 * Picks the runtime once, at start-up, the way Oak picks its native or Node HTTP server. Nothing else in Netweir
 * checks which runtime it is on.
 */
import { denoRuntime } from "./deno.ts";
import { nodeRuntime } from "./node.ts";
import type { Runtime } from "./types.ts";

export type * from "./types.ts";

/** The runtime this process runs on. Stateless: it holds no crawl's data. */
export const runtime: Runtime = "Deno" in globalThis ? denoRuntime : nodeRuntime;
