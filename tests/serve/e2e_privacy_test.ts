/**
 * "Keeping it private", through the real socket of a running `netweir serve`: requests only a web page sends, binding
 * beyond this machine, basic auth, and one service per --dir. The connection limits are in e2e_connections_test.ts.
 */
import assert from "node:assert/strict";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startFixtureSite } from "../helpers/fixture_site.ts";
import { exists } from "./_job_helpers.ts";
import { withTempDir } from "./_setup.ts";
import { curlWithStatus, E2E_PROJECT, poll, type ServeProcess, startServe, stopQuietly } from "./_e2e_service.ts";

/** No login from the environment the tests run in. */
const NO_LOGIN = { NETWEIR_SERVE_USERNAME: undefined, NETWEIR_SERVE_PASSWORD: undefined };

Deno.test("requests only a web page would send are refused: an Origin header, or a Host that is not this machine", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), [], { env: NO_LOGIN });
      const listjobs = `${service.url}listjobs.json`;

      const withOrigin = await curlWithStatus(["-H", "Origin: http://evil.example", listjobs]);
      assert.equal(withOrigin.status, 403);
      assert.match(JSON.parse(withOrigin.body).message, /Origin header/);

      const rebound = await curlWithStatus(["-H", "Host: evil.example", listjobs]);
      assert.equal(rebound.status, 403);
      assert.match(JSON.parse(rebound.body).message, /DNS rebinding/);

      // A page can't schedule either: the refused POST left no job behind.
      const schedule = await curlWithStatus([
        ...["-H", `Host: evil.example:${service.port}`],
        `${service.url}schedule.json`,
        ...["-d", "project=shop", "-d", "spider=books"],
      ]);
      assert.equal(schedule.status, 403);

      // localhost. is localhost as a fully qualified name (the root's dot), not a rebinding.
      for (
        const host of [`localhost:${service.port}`, "127.0.0.1", `[::1]:${service.port}`, `localhost.:${service.port}`]
      ) {
        const fine = await curlWithStatus(["-H", `Host: ${host}`, listjobs]);
        assert.equal(fine.status, 200, host);
        assert.deepEqual(JSON.parse(fine.body).finished, [], "no job was scheduled");
      }
    });
  } finally {
    await stopQuietly(service);
  }
});

Deno.test("binding 0.0.0.0 without a username and password is refused with exit 2 before anything is touched", async () => {
  await withTempDir(async (dir) => {
    const serveDir = join(dir, "serve");
    const result = await runCli(
      ["serve", "--project", `shop=${E2E_PROJECT}`, "--bind", "0.0.0.0", "--port", "0", "--dir", serveDir],
      { env: NO_LOGIN },
    );
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /refusing to listen on 0\.0\.0\.0 without a username and password: set NETWEIR_SERVE_USERNAME and NETWEIR_SERVE_PASSWORD, or give --insecure-no-auth/,
    );
    assert.equal(await exists(serveDir), false, "no --dir was made");
  });
});

Deno.test("with --insecure-no-auth it listens on 0.0.0.0 and starts with the DNS-rebinding warning", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--bind", "0.0.0.0", "--insecure-no-auth"], { env: NO_LOGIN });
      const { stderr, stdout } = service.process.output();
      assert.match(stderr + stdout, /WARNING listening without a username and password .* DNS rebinding/);
      assert.match(stderr + stdout, /serving shop at http:\/\/0\.0\.0\.0:\d+\//);
      assert.equal((await service.get("daemonstatus.json")).status, "ok");
      // It can't tell a rebinding host name apart any more, which is what the warning says; Origin still can't pass.
      const withOrigin = await curlWithStatus(["-H", "Origin: http://evil.example", `${service.url}listjobs.json`]);
      assert.equal(withOrigin.status, 403);
    });
  } finally {
    await stopQuietly(service);
  }
});

Deno.test("with NETWEIR_SERVE_USERNAME and NETWEIR_SERVE_PASSWORD curl -u gets in, a wrong password gets 401, and the password is never logged", async () => {
  const password = "s3cret-Pa55word-4711";
  const wrong = "wrong-Pa55word-0815";
  const site = await startFixtureSite({ books: 3 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--bind", "0.0.0.0"], {
        env: { NETWEIR_SERVE_USERNAME: "me", NETWEIR_SERVE_PASSWORD: password },
      });
      const listjobs = `${service.url}listjobs.json`;
      const ok = await curlWithStatus(["-u", `me:${password}`, listjobs]);
      assert.equal(ok.status, 200);
      assert.equal(JSON.parse(ok.body).status, "ok");

      for (const login of [["-u", `me:${wrong}`], ["-u", `you:${password}`], []]) {
        const refused = await curlWithStatus([...login, listjobs]);
        assert.equal(refused.status, 401, login.join(" "));
        assert.equal(refused.body, "Unauthorized");
      }
      const headers = await curlWithStatus(["-u", `me:${wrong}`, "-D", "-", "-o", "/dev/null", listjobs]);
      assert.match(headers.body, /www-authenticate: Basic realm="netweir serve"/i);

      const scheduled = await curlWithStatus([
        ...["-u", `me:${password}`, `${service.url}schedule.json`],
        ...["-d", "project=shop", "-d", "spider=books", "-d", `site=${site.url}`],
        ...["-d", "show_env=NETWEIR_SERVE_PASSWORD"],
      ]);
      assert.equal(scheduled.status, 200, scheduled.body);
      const id = JSON.parse(scheduled.body).jobid;
      const unauthorised = await curlWithStatus([
        "-u",
        `me:${wrong}`,
        `${service.url}cancel.json`,
        "-d",
        "project=shop",
        "-d",
        `job=${id}`,
      ]);
      assert.equal(unauthorised.status, 401);
      // waitForJob talks without a login; ask with one.
      const outcome = await poll("the job to finish", async () => {
        const jobs = JSON.parse((await curlWithStatus(["-u", `me:${password}`, listjobs])).body);
        return jobs.finished.find((job: { id: string }) => job.id === id)?.outcome;
      });
      assert.equal(outcome, "finished");

      const stopped = await service.stop();
      service = undefined;
      assert.equal(stopped.code, 0, stopped.stderr);
      const jobLog = await readFile(join(dir, "serve", "logs", "shop", "books", `${id}.log`), "utf8");
      assert.match(jobLog, /NETWEIR_SERVE_PASSWORD is unset/, "jobs do not inherit the service's login");
      for (const text of [stopped.stdout, stopped.stderr, jobLog]) {
        assert.ok(!text.includes(password), `the password is not in:\n${text}`);
        assert.ok(!text.includes(wrong), `nor is a wrong one tried:\n${text}`);
      }
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});

Deno.test("a second service on the same --dir stops with an error and exit 1 before touching anything", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      service = await startServe(serveDir, [], { env: NO_LOGIN });
      const db = join(serveDir, "jobs.db");
      const before = { pid: await readFile(join(serveDir, "serve.pid"), "utf8"), db: (await stat(db)).mtimeMs };

      const second = await runCli(
        ["serve", "--project", `shop=${E2E_PROJECT}`, "--port", "0", "--dir", serveDir],
        { env: NO_LOGIN },
      );
      assert.equal(second.code, 1, second.stderr);
      assert.match(second.stderr, new RegExp(`in use by another netweir serve \\(pid ${before.pid.trim()}\\)`));
      assert.doesNotMatch(second.stderr, /serving/);
      assert.equal(await readFile(join(serveDir, "serve.pid"), "utf8"), before.pid, "the pid file is the first's");
      assert.equal((await stat(db)).mtimeMs, before.db, "jobs.db was not touched");
      assert.equal((await service.get("daemonstatus.json")).status, "ok", "the first service carries on");
    });
  } finally {
    await stopQuietly(service);
  }
});

Deno.test("secrets named pwd, auth, cookie and X-Token are masked in listjobs, the job's page and its log", async () => {
  const site = await startFixtureSite({ books: 2 });
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--max-jobs", "1"], { env: NO_LOGIN });
      const gate = join(dir, "gate");
      const given = {
        project: "shop",
        spider: "books",
        site: site.url,
        gate,
        pwd: "pw-1",
        auth: "pw-2",
        session_cookie: "pw-3",
        feed: `${site.url}feed?pwd=pw-4&auth=pw-5`,
        author: "Tolkien",
        setting: 'default_headers={"X-Token":"pw-6","Accept":"text/html"}',
      };
      const first = await service.post("schedule.json", { ...given, jobid: "running" });
      assert.equal(first.status, "ok", JSON.stringify(first));
      await service.waitForJob("running", "running");
      // A second job waits behind the first: listjobs shows a waiting job's settings and arguments.
      await service.post("schedule.json", { ...given, jobid: "waiting", setting: [given.setting, "max_items=1"] });
      const listed = await service.jobs();
      assert.deepEqual(listed.pending.map((job) => job.id), ["waiting"]);
      const pages: string[] = [JSON.stringify(listed)];
      await writeFile(gate, "");
      for (const id of ["running", "waiting"]) {
        const job = await service.waitForJob(id, "finished");
        assert.equal(job.outcome, "finished");
        pages.push((await service.text(`/job/shop/${id}`)).body, (await service.text(job.log_url)).body);
      }
      const all = pages.join("\n");
      assert.doesNotMatch(all, /pw-\d/);
      assert.match(all, /Tolkien/, "an author is not a secret");
      assert.match(pages[1], /X-Token/, "the header's name is shown, its value masked");
    });
  } finally {
    await stopQuietly(service);
    await site.close();
  }
});
