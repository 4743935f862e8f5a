/**
 * Imported first by mod.ts and serve.ts: a program importing Netweir on a Node older than it runs on gets an error
 * saying so at the import, not "Promise.withResolvers is not a function" in the middle of its first crawl.
 */
import { thisNodeRefusal } from "./node_version.ts";

const refusal = thisNodeRefusal();
if (refusal !== undefined) throw new Error(refusal);
