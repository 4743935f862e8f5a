/**
 * Which ancestors a crawl started through npm watches: real process chains, with `exec -a npm` standing in for npm's
 * process title (`npm exec ...`).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { endedLauncher, launchersOf } from "../../src/runtime/launchers.ts";
import { sendSignal } from "../helpers/signal.ts";
import { waitUntil } from "../helpers/wait.ts";

const NPM_ENV = { npm_command: "exec" };

/** Starts `bash -c script`, whose innermost `sleep` is found as the youngest descendant. */
async function chain(script: string): Promise<{ top: ChildProcess; sleeper: number }> {
  const top = spawn("bash", ["-c", script], { stdio: "ignore" });
  const sleeper = await waitUntil("the sleep at the end of the chain", async () => {
    for (let pid = top.pid!, depth = 0; depth < 6; depth++) {
      const children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
      const next = Number(children.trim().split(" ")[0]);
      if (!next) return undefined;
      const command = await readFile(`/proc/${next}/cmdline`, "utf8").catch(() => "");
      if (command.startsWith("sleep")) return next;
      pid = next;
    }
    return undefined;
  }, 10_000);
  return { top, sleeper };
}

Deno.test("npm, then a shell: both are watched, and the npm process ending is seen", async () => {
  const { top, sleeper } = await chain(`exec -a npm bash -c 'sh -c "sleep 30; true"; true'`);
  try {
    const launchers = launchersOf(NPM_ENV, sleeper);
    assert.deepEqual(launchers.map((launcher) => launcher.command.split(" ")[0]), ["sh", "npm"]);
    assert.equal(endedLauncher(launchers), undefined);
    await sendSignal(top.pid!, "SIGKILL");
    const ended = await waitUntil("the npm process's end to be seen", () => endedLauncher(launchers), 10_000);
    assert.equal(ended.command.split(" ")[0], "npm");
  } finally {
    await sendSignal(sleeper, "SIGKILL").catch(() => {});
    top.kill("SIGKILL");
  }
});

Deno.test("nothing is watched without npm's variable, or when another program stands between npm and the crawl", async () => {
  const { top, sleeper } = await chain(
    `exec -a npm bash -c 'python3 -c "import subprocess; subprocess.run([\\"sleep\\", \\"30\\"])"; true'`,
  );
  try {
    // A program that started the crawl itself (netweir serve, a test runner) between: its end is not npm's signal.
    assert.deepEqual(launchersOf(NPM_ENV, sleeper), []);
    assert.deepEqual(launchersOf({}, sleeper), []);
  } finally {
    await sendSignal(sleeper, "SIGKILL").catch(() => {});
    top.kill("SIGKILL");
  }
});
