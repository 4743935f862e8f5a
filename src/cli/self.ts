/** Kept so that older imports still work: selfCli lives in src/runtime/self_cli.ts, below every layer that runs it. */
export { CLI_PATH, selfCli } from "../runtime/self_cli.ts";
