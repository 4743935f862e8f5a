/**
 * The environment of every process the service starts for spider code: its jobs and the processes that read spider
 * files for listing and scheduling. The service's own login is taken out: a spider has no business reading it.
 */
import { runtime } from "../runtime/mod.ts";

/** Variables no spider code ever sees. */
export const PRIVATE_VARIABLES: readonly string[] = ["NETWEIR_SERVE_USERNAME", "NETWEIR_SERVE_PASSWORD"];

/** This process's environment without {@link PRIVATE_VARIABLES}, as a fresh object. */
export function spiderEnvironment(): Record<string, string> {
  const environment = runtime.environment();
  for (const name of PRIVATE_VARIABLES) delete environment[name];
  return environment;
}
