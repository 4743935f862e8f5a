/** Python's scrapyd clients keep working: scrapyd_client.py (python-scrapyd-api's calls, over urllib) against the service. */
import assert from "node:assert/strict";
import { runCommand } from "../helpers/command.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { withTempDir } from "./_setup.ts";
import { type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";

const CLIENT = fileURLToPath(new URL("./scrapyd_client.py", import.meta.url));

function python(args: string[]) {
  return runCommand("python3", [CLIENT, ...args]);
}

/** The client's output, one `NAME JSON` line per call, as a map. */
function calls(stdout: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const line of stdout.trim().split("\n")) {
    const match = /^(.+?) ([[{"\dnt].*)$/.exec(line);
    assert.ok(match, `a line of the client's output: ${line}`);
    out.set(match[1], JSON.parse(match[2]));
  }
  return out;
}

Deno.test("python-scrapyd-api's calls work against netweir serve: projects, spiders, schedule, job status, list jobs, cancel", async () => {
  const site = await startFixtureSite({ books: 10 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      // The client's default target is http://localhost:6800: it talks to localhost, which the Host check allows.
      const target = `http://localhost:${service.port}`;
      const result = await python([target, site.url, join(dir, "never")]);
      assert.equal(result.code, 0, result.stderr + result.stdout);
      const said = calls(result.stdout);
      assert.deepEqual(said.get("daemon_status"), ["finished", "node_name", "pending", "running"]);
      assert.deepEqual(said.get("list_projects"), ["shop"]);
      assert.deepEqual(said.get("list_spiders"), ["books", "stubborn"]);
      assert.deepEqual(said.get("list_versions"), []);
      assert.equal(said.get("schedule"), 32, "a 32-digit job id");
      assert.equal(said.get("job_status finished"), "finished");
      assert.deepEqual(said.get("list_jobs"), ["finished", "node_name", "pending", "running"]);
      const finished = said.get("finished job") as Record<string, string>;
      assert.equal(finished.outcome, "finished");
      assert.match(finished.items_url, /^\/items\/shop\/books\/[0-9a-f]{32}\.jl$/);
      assert.deepEqual(said.get("items"), ["poetry"], "spider arguments given as keyword arguments arrived");
      assert.equal(said.get("schedule slow"), "Slow-1", "the job id as given, so job_status finds it by that id");
      assert.equal(said.get("job_status running"), "running");
      assert.equal(said.get("cancel"), "running", "prevstate");
      assert.equal(said.get("job_status cancelled"), "finished");
      assert.equal(said.get("cancel again"), null, "a finished job has nothing to cancel: prevstate null, as scrapyd");
      assert.match(String(said.get("schedule error")), /^spider 'nope' not found in project 'shop'/);
      assert.match(String(said.get("delete_project error")), /^delproject\.json is not supported/);
      assert.equal(said.get("bad setting error"), "setting concurrency must be at least 1");
      const jobs = await service.jobs();
      assert.deepEqual(jobs.finished.map((job) => job.outcome), ["finished", "cancelled"]);
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

const PYCLIENT = fileURLToPath(new URL("./scrapyd_pyclient.py", import.meta.url));

Deno.test("scrapyd-client's ScrapydClient works against netweir serve, every method, status() included", async () => {
  const site = await startFixtureSite({ books: 10 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const result = await runCommand("python3", [
        PYCLIENT,
        `http://localhost:${service.port}`,
        site.url,
        join(dir, "never"),
      ]);
      assert.equal(result.code, 0, result.stderr + result.stdout);
      const said = calls(result.stdout);
      assert.deepEqual(said.get("projects"), ["shop"]);
      assert.deepEqual(said.get("spiders"), ["books", "stubborn"]);
      assert.deepEqual(said.get("daemonstatus"), ["finished", "node_name", "pending", "running", "status"]);
      assert.deepEqual(said.get("versions"), []);
      assert.equal(said.get("status unknown"), null, "scrapyd 1.6 answers currstate null");
      assert.equal(said.get("schedule"), 32);
      assert.equal(said.get("status finished"), "finished");
      assert.equal(said.get("jobs"), true);
      assert.equal(said.get("status running"), "running");
      assert.equal(said.get("status without project"), "running");
      assert.equal(said.get("cancel"), "running");
      assert.equal(said.get("status cancelled"), "finished");
      assert.match(String(said.get("delproject error")), /^delproject\.json is not supported/);
      assert.match(String(said.get("delversion error")), /^version 'r1' not found/);
      assert.equal(said.get("status bad project error"), "project 'nope' not found");
      assert.match(String(said.get("spiders bad project error")), /^'project' parameter is invalid: "\.\.\/p"/);
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
