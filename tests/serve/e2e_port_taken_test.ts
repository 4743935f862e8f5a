import assert from "node:assert/strict";
import { createServer } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobStore } from "../../src/serve/job_store.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { runCli } from "../helpers/cli.ts";
import { E2E_PROJECT, storeWaitingJob } from "./_e2e_service.ts";

Deno.test("a service that cannot listen (port taken) exits 1 and leaves waiting jobs waiting", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-port-"));
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    storeWaitingJob(dir, "waiting-1");
    const result = await runCli([
      "serve",
      "--project",
      `shop=${E2E_PROJECT}`,
      "--dir",
      dir,
      "--port",
      String(port),
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /EADDRINUSE|in use/i);
    const after = new JobStore(servePaths(dir).jobsDb);
    try {
      assert.equal(after.get("waiting-1")?.state, "pending");
    } finally {
      after.close();
    }
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
    await rm(dir, { recursive: true, force: true });
  }
});
