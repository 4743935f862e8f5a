/** scrapyd's answers to the small things, which its clients and dashboards depend on (through app.request). */
import assert from "node:assert/strict";
import type { Hono } from "hono";
import { checkServeOptions } from "../../src/serve/options.ts";
import { createProjectRegistry } from "../../src/serve/projects.ts";
import { FIXTURES, form, record, withApp } from "./_setup.ts";

const AUTH = { username: "me", password: "s3cr3t-Password" };

async function answer(app: Hono, path: string, init?: RequestInit): Promise<Record<string, unknown>> {
  const response = await app.request(path, init);
  const text = await response.text();
  assert.ok(text.endsWith("}\n"), `${path}: the JSON answer ends with a newline: ${JSON.stringify(text)}`);
  return JSON.parse(text);
}

Deno.test("a missing or wrong login answers 401 with the body Unauthorized and a WWW-Authenticate header, as scrapyd", async () => {
  await withApp({ auth: AUTH }, async ({ app }) => {
    for (const authorization of [undefined, `Basic ${btoa("me:wrong")}`]) {
      const response = await app.request("/listjobs.json", { headers: authorization ? { authorization } : {} });
      assert.equal(response.status, 401);
      assert.equal(await response.text(), "Unauthorized");
      assert.match(response.headers.get("www-authenticate") ?? "", /^Basic realm="/);
    }
  });
});

Deno.test("every JSON answer ends with a newline: ok, error, 404, 405 and the 403 refusals", async () => {
  await withApp({}, async ({ app }) => {
    await answer(app, "/daemonstatus.json");
    await answer(app, "/listspiders.json");
    await answer(app, "/no-such.json");
    await answer(app, "/schedule.json");
    await answer(app, "/logs/shop/books/none.log");
    await answer(app, "/listjobs.json", { headers: { origin: "http://evil.example" } });
    await answer(app, "http://evil.example:6800/listjobs.json");
  });
});

Deno.test("OPTIONS on an endpoint answers 204 with its methods in Allow as scrapyd writes them; with an Origin header it is refused", async () => {
  await withApp({}, async ({ app }) => {
    const options = (path: string, headers: Record<string, string> = {}) =>
      app.request(path, { method: "OPTIONS", headers });
    const get = await options("/listjobs.json");
    assert.equal(get.status, 204);
    assert.equal(await get.text(), "");
    // scrapyd's order, OPTIONS and HEAD first, which scrapyd's own integration tests compare as text.
    assert.equal(get.headers.get("allow"), "OPTIONS, HEAD, GET");
    const post = await options("/schedule.json");
    assert.equal(post.status, 204);
    assert.equal(post.headers.get("allow"), "OPTIONS, HEAD, POST");
    assert.equal((await options("/status.json")).headers.get("allow"), "OPTIONS, HEAD, GET");
    for (const path of ["/addversion.json", "/delversion.json"]) {
      assert.equal((await options(path)).headers.get("allow"), "OPTIONS, HEAD, POST", `${path}: POST in scrapyd`);
    }
    // A browser's preflight carries an Origin: it gets no Allow-anything from this service.
    const preflight = await options("/schedule.json", { origin: "http://evil.example" });
    assert.equal(preflight.status, 403);
    assert.equal(preflight.headers.get("allow"), null);
  });
});

Deno.test("cancel.json passes its signal on (INT by default; TERM, KILL, SIG names and numbers) and refuses others by name", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    for (const id of ids) jobs.start(jobs.insert(record({ id, project: "shop", spider: "books" })).id);
    const cancel = (job: string, signal?: string) =>
      answer(
        app,
        "/cancel.json",
        form([["project", "shop"], ["job", job], ...(signal ? [["signal", signal]] : [])] as [string, string][]),
      );
    assert.equal((await cancel("a")).prevstate, "running");
    assert.equal((await cancel("b", "KILL")).prevstate, "running");
    assert.equal((await cancel("c", "TERM")).prevstate, "running");
    assert.equal((await cancel("d", "sigkill")).prevstate, "running");
    assert.equal((await cancel("e", "15")).prevstate, "running");
    assert.deepEqual(jobs.signals, ["INT", "KILL", "TERM", "KILL", "TERM"]);
    const refused = await cancel("f", "HUP");
    assert.equal(refused.status, "error");
    assert.match(String(refused.message), /^'signal' parameter is invalid: "HUP" is not INT, TERM or KILL$/);
    assert.equal(jobs.get("f")!.state, "running", "a refused cancel touches nothing");
  });
});

Deno.test("status.json gives a job's currstate: pending, running, finished, or null as scrapyd 1.6; project narrows it", async () => {
  await withApp({}, async ({ app, jobs }) => {
    for (const id of ["w", "r", "f", "c"]) jobs.insert(record({ id, project: "shop", spider: "books" }));
    jobs.cancel("shop", "c");
    jobs.start("r");
    jobs.start("f");
    jobs.end("f", "failed");
    const status = (query: string) => answer(app, `/status.json?${query}`);
    assert.deepEqual(await status("job=w"), { node_name: "box", status: "ok", currstate: "pending" });
    assert.equal((await status("job=R")).currstate, "running", "job ids ignore case");
    assert.equal((await status("job=f&project=shop")).currstate, "finished");
    assert.deepEqual(await status("job=nope"), { node_name: "box", status: "ok", currstate: null });
    assert.equal((await status("job=f&project=news")).currstate, null, "a job of another project");
    assert.equal((await status("job=c")).currstate, null, "cancelled while waiting: scrapyd forgets it");
    assert.deepEqual(await status("project=shop"), {
      node_name: "box",
      status: "error",
      message: "'job' parameter is required",
    });
    assert.deepEqual(await status("job=f&project=nope"), {
      node_name: "box",
      status: "error",
      message: "project 'nope' not found",
    });
  });
});

Deno.test("a project, spider or job name outside the name rule is refused by every endpoint but the deploying ones, naming the parameter", async () => {
  await withApp({}, async ({ app, jobs }) => {
    const bad = "../p";
    const cases: [string, RequestInit | undefined, string][] = [
      [`/listspiders.json?project=${bad}`, undefined, "project"],
      [`/listjobs.json?project=${bad}`, undefined, "project"],
      [`/jobstats.json?job=x&project=${bad}`, undefined, "project"],
      [`/status.json?job=x&project=${bad}`, undefined, "project"],
      [`/status.json?job=${bad}`, undefined, "job"],
      [`/jobstats.json?job=${bad}`, undefined, "job"],
      ["/schedule.json", form([["project", bad], ["spider", "books"]]), "project"],
      ["/schedule.json", form([["project", "shop"], ["spider", bad]]), "spider"],
      ["/cancel.json", form([["project", bad], ["job", "x"]]), "project"],
      ["/cancel.json", form([["project", "shop"], ["job", bad]]), "job"],
      ["/delproject.json", form([["project", "a b"]]), "project"],
    ];
    for (const [path, init, param] of cases) {
      const said = await answer(app, path, init);
      assert.equal(said.status, "error", path);
      assert.equal(
        said.message,
        `'${param}' parameter is invalid: ${
          JSON.stringify(String(init?.body ?? "").includes("a+b") ? "a b" : bad)
        } must be letters, digits, ., _ and -, starting with a letter or ` +
          "digit (at most 128)",
        `${path} ${param}`,
      );
    }
    assert.deepEqual(jobs.list(), []);
  });
});

Deno.test("the deploying endpoints refuse a project that leads out of a folder in scrapyd's words, and delversion.json finds no version", async () => {
  await withApp({}, async ({ app }) => {
    const cases: [string, RequestInit | undefined][] = [
      ["/listversions.json?project=../p", undefined],
      ["/addversion.json", form([["project", "../p"], ["version", "v"]])],
      ["/delversion.json", form([["project", "../p"], ["version", "v"]])],
      ["/delproject.json", form([["project", "../p"]])],
      ["/delproject.json", form([["project", "a/../../p"]])],
    ];
    for (const [path, init] of cases) {
      const said = await answer(app, path, init);
      const project = init ? new URLSearchParams(init.body as string).get("project") : "../p";
      assert.deepEqual(
        said,
        { node_name: "box", status: "error", message: `DirectoryTraversalError: ${project}` },
        path,
      );
    }
    // A name that stays inside its folder is refused by the name rule, as everywhere else.
    const inside = await answer(app, "/listversions.json?project=a/b");
    assert.match(String(inside.message), /^'project' parameter is invalid: "a\/b" must be/);
    // There are no versions at all: whatever version is named is not found, in scrapyd's words.
    const version = await answer(app, "/delversion.json", form([["project", "sample"], ["version", "nonexistent"]]));
    assert.deepEqual(version, { node_name: "box", status: "error", message: "version 'nonexistent' not found" });
  });
});

Deno.test("the service starts with no --project at all, and listprojects.json then answers []", async () => {
  const options = checkServeOptions({}, () => undefined);
  assert.deepEqual(options.projects, []);
  const registry = createProjectRegistry(options.projects, FIXTURES);
  await withApp({ registry }, async ({ app }) => {
    assert.deepEqual(await answer(app, "/listprojects.json"), { node_name: "box", status: "ok", projects: [] });
    assert.equal((await answer(app, "/listspiders.json?project=shop")).message, "project 'shop' not found");
  });
});
