/**
 * The job server (`netweir serve`): spiders run as jobs behind a scrapyd-compatible HTTP API. Run it as
 * `deno run -A serve.ts --project shop=spiders/` (the same as `netweir serve ...`), or start it from your own
 * program with `checkServeOptions` and `startService`. The HTTP app and the job service it is built from are not
 * part of the public API: they hold each other's internals, and `startService` puts them together in the one order
 * that is safe.
 *
 * @module
 */
// First, so that it is evaluated before any module that needs Node 22.12.
import "./src/runtime/require_new_node.ts";
import { main } from "./src/cli/main.ts";
import { runtime } from "./src/runtime/mod.ts";

export { type RunningService, startService } from "./src/serve/service.ts";
export { checkServeOptions, type RawServeOptions, type ServeOptions } from "./src/serve/options.ts";

if (runtime.isMainModule(import.meta)) {
  runtime.exit(await main(["serve", ...runtime.args()]));
}
