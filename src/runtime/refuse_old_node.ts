/**
 * Imported first by cli.ts, so that it runs before any module that needs Node 22: on an older Node the `netweir`
 * command prints one line and exits with 1 instead of failing later in the middle of a crawl.
 */
import process from "node:process";
import { thisNodeRefusal } from "./node_version.ts";

const refusal = thisNodeRefusal();
if (refusal !== undefined) {
  process.stderr.write(`netweir: ${refusal}\n`);
  process.exit(1);
}
