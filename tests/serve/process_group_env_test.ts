import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runScript } from "../helpers/cli.ts";

const STARTER = fileURLToPath(new URL("./fixtures/start_group.ts", import.meta.url));

Deno.test("a job does not inherit the service's login from the environment, but does inherit the rest", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-env-"));
  try {
    const logFile = join(dir, "job.log");
    const script = 'echo "user=${NETWEIR_SERVE_USERNAME:-absent} pass=${NETWEIR_SERVE_PASSWORD:-absent} ' +
      'other=$NETWEIR_TEST_OTHER"';
    const result = await runScript(STARTER, [logFile, script], {
      env: { NETWEIR_SERVE_PASSWORD: "hunter2", NETWEIR_SERVE_USERNAME: "admin", NETWEIR_TEST_OTHER: "kept" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await readFile(logFile, "utf8"), "user=absent pass=absent other=kept\n");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
