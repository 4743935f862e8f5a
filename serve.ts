/**
 * The job server entry (`netweir serve`): not built yet. The scrapyd-compatible API of shared/spec/serve.md lands
 * with its own issue; until then this entry says so instead of pretending.
 */
import { runtime } from "./src/runtime/mod.ts";

if (import.meta.main) {
  runtime.writeStderr("netweir: serve is not available yet\n");
  runtime.exit(1);
}
