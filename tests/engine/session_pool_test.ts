/** The session pool on its own: taking in turn, by name, the error score, the usage limit, and save and restore. */
import assert from "node:assert/strict";
import { SessionPool, type SessionPoolOptions } from "../../src/engine/session_pool.ts";
import { createLogger } from "../../src/log.ts";
import { Stats } from "../../src/engine/stats.ts";

function pool(options: Partial<SessionPoolOptions> = {}, saved?: ReturnType<SessionPool["save"]>) {
  const stats = new Stats();
  const made = new SessionPool({
    size: 2,
    maxUsage: 50,
    maxErrorScore: 3,
    userAgents: [],
    proxies: [],
    cookies: true,
    stats,
    log: createLogger("error"),
    ...options,
  }, saved);
  return { pool: made, stats };
}

Deno.test("sessions are made up to the pool's size, then taken in turn, each with the next user agent and proxy", () => {
  const { pool: sessions, stats } = pool({
    size: 3,
    userAgents: ["a", "b"],
    proxies: ["http://127.0.0.1:1", "http://127.0.0.1:2"],
  });
  const taken = Array.from({ length: 6 }, () => sessions.take(undefined));
  assert.deepEqual(taken.map((session) => session.id), ["s1", "s2", "s3", "s1", "s2", "s3"]);
  assert.deepEqual(taken.slice(0, 3).map((session) => session.userAgent), ["a", "b", "a"]);
  assert.deepEqual(taken.slice(0, 3).map((session) => session.proxy), [
    "http://127.0.0.1:1",
    "http://127.0.0.1:2",
    "http://127.0.0.1:1",
  ]);
  assert.equal(stats.get("sessions.used"), 3);
  assert.equal(taken[0].usageCount, 2);
});

Deno.test("a name is taken when live, made when there is room, and never reborn once retired", () => {
  const { pool: sessions } = pool({ size: 2 });
  const alice = sessions.take("alice");
  assert.equal(alice.id, "alice");
  assert.equal(sessions.take("alice"), alice);
  alice.retire();
  const after = sessions.take("alice");
  assert.notEqual(after.id, "alice");
  assert.ok(alice.retired);
});

Deno.test("three failures retire a session; a good page takes half a point off", () => {
  const { pool: sessions, stats } = pool();
  const session = sessions.take(undefined);
  session.markBad();
  session.markBad();
  session.markGood();
  assert.equal(session.errorScore, 1.5);
  session.markBad();
  assert.equal(session.retired, false);
  session.markBad();
  assert.equal(session.retired, true);
  assert.equal(stats.get("sessions.retired_errors"), 1);
  assert.equal(stats.get("sessions.retired"), 1);
});

Deno.test("a session used its maximum number of times is retired, and a new one takes its place", () => {
  const { pool: sessions, stats } = pool({ size: 1, maxUsage: 2 });
  const ids = Array.from({ length: 5 }, () => sessions.take(undefined).id);
  assert.deepEqual(ids, ["s1", "s1", "s2", "s2", "s3"]);
  assert.equal(stats.get("sessions.retired_max_usage"), 2);
});

Deno.test("a pool saved and restored has the same sessions, cookies, headers and counts", async () => {
  const { pool: first } = pool();
  const session = first.take("keep");
  await session.jar!.setCookie("sid=42; Path=/", "http://127.0.0.1/");
  session.setHeader("X-Token", "t");
  first.take(undefined).retire();
  const saved = JSON.parse(JSON.stringify(first.save()));
  const { pool: second } = pool({}, saved);
  assert.deepEqual(second.live.map((one) => one.id), ["keep"]);
  const back = second.take("keep");
  assert.equal(back.usageCount, 2);
  assert.deepEqual(back.headers, { "x-token": "t" });
  assert.equal(await back.jar!.getCookieString("http://127.0.0.1/"), "sid=42");
  assert.ok(back.cookieStore.everStored);
  assert.notEqual(second.take(undefined).id, "s2", "a retired name is not reborn after a resume");
});

Deno.test("a pool resumed with fewer sessions keeps the first ones only", () => {
  const { pool: first } = pool({ size: 3 });
  for (let i = 0; i < 3; i++) first.take(undefined);
  const { pool: second } = pool({ size: 2 }, first.save());
  assert.deepEqual(second.live.map((session) => session.id), ["s1", "s2"]);
  assert.deepEqual([second.take(undefined).id, second.take(undefined).id, second.take(undefined).id], [
    "s1",
    "s2",
    "s1",
  ]);
});
