/** Spider arguments (`-a NAME=VALUE`): string attributes set on a spider, by the identifier rule. */
import { UsageError } from "../errors.ts";
import { spiderAttributeAllowed } from "./callbacks.ts";
import type { Spider } from "./spider.ts";

/** Sets `-a NAME=VALUE` arguments as string attributes, refusing names the identifier rule forbids. */
export function applySpiderArgs(spider: Spider, args: readonly string[]): void {
  for (const arg of args) {
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const problem = spiderAttributeAllowed(name);
    if (eq < 0 || problem) throw new UsageError(`spider argument ${name}: ${problem ?? "must be NAME=VALUE"}`);
    (spider as unknown as Record<string, string>)[name] = arg.slice(eq + 1);
  }
}
