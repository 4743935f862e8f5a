import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { CLI_PATH, REPO_ROOT, runCli, runScript, startScript } from "../helpers/cli.ts";

const SCRIPT = new URL("./fixtures/report_script.ts", import.meta.url).pathname;

Deno.test("the repository root is found from the helper's own location", () => {
  assert.ok(existsSync(`${REPO_ROOT}/deno.json`));
  assert.equal(CLI_PATH, `${REPO_ROOT}/cli.ts`);
});

Deno.test("runScript passes arguments, input, working directory and environment changes", async () => {
  const cwd = tmpdir();
  const result = await runScript(SCRIPT, ["exit", "0", "--flag=a b"], {
    cwd,
    stdin: "line one\nline two\n",
    env: { HELPER_ADDED: "yes", HOME: undefined },
  });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(report.args, ["exit", "0", "--flag=a b"]);
  assert.equal(report.cwd, cwd);
  assert.equal(report.stdin, "line one\nline two\n");
  assert.equal(report.added, "yes");
  assert.equal(report.home, null);
  assert.equal(report.hasPath, true, "the rest of the environment is inherited");
});

Deno.test("runScript reports the exit code and standard error", async () => {
  const result = await runScript(SCRIPT, ["exit", "3"]);
  assert.equal(result.code, 3);
  assert.equal(result.signal, null);
  assert.equal(result.stderr, "a line on stderr\n");
});

Deno.test("a started process gets every signal sent to it, not only the first", async () => {
  const running = startScript(SCRIPT, ["signals"]);
  assert.equal(await running.waitFor(/ready/), "ready");
  await running.kill("SIGINT");
  await running.waitFor(/got SIGINT 1/);
  await running.kill("SIGINT");
  const result = await running.wait();
  assert.equal(result.code, 130);
  assert.match(result.stderr, /got SIGINT 2/);
});

Deno.test("a killed process reports the signal that ended it, and waitFor fails once it is gone", async () => {
  const running = startScript(SCRIPT, ["signals"]);
  await running.waitFor(/ready/);
  await running.kill("SIGKILL");
  const result = await running.wait();
  assert.equal(result.code, null);
  assert.equal(result.signal, "SIGKILL");
  await assert.rejects(running.waitFor(/never printed/), /exited before printing/);
});

Deno.test("a process that outlives its timeout is killed and the run fails", async () => {
  await assert.rejects(runScript(SCRIPT, ["signals"], { timeoutMs: 1500 }), /did not finish in 1500 ms/);
});

Deno.test({
  name: "runCli runs the command line's version command",
  ignore: !existsSync(CLI_PATH),
  fn: async () => {
    const result = await runCli(["version"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\d+\.\d+\.\d+/);
  },
});
