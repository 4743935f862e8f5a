/**
 * The job server (`netweir serve`): spiders run as jobs behind a scrapyd-compatible HTTP API. Run it as
 * `deno run -A serve.ts --project shop=spiders/` (the same as `netweir serve ...`), or build it into your own
 * program with `startService` and `createApp`.
 *
 * @module
 */
import { main } from "./src/cli/main.ts";
import { runtime } from "./src/runtime/mod.ts";

export { type AppOptions, createApp } from "./src/serve/app.ts";
export { type RunningService, startService } from "./src/serve/service.ts";
export { checkServeOptions, type ServeOptions } from "./src/serve/options.ts";
export { createProjectRegistry } from "./src/serve/projects.ts";

if (runtime.isMainModule(import.meta)) {
  runtime.exit(await main(["serve", ...runtime.args()]));
}
