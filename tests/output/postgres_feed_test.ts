import assert from "node:assert/strict";
import { QueueError, UsageError } from "../../src/errors.ts";
import { FeedSet, parseFeedTarget } from "../../src/output/feeds.ts";
import { PostgresFeed } from "../../src/output/postgres_feed.ts";
import { freePort } from "../helpers/free_port.ts";
import { sleep } from "../helpers/wait.ts";
import { startPostgres } from "./_postgres.ts";

function usage(pattern: RegExp) {
  return (error: unknown) =>
    error instanceof UsageError && pattern.test(error.message) && !/hunter2/.test(error.message);
}

Deno.test("a PostgreSQL output names a plain table and key, or is refused in one line with the password masked", () => {
  assert.equal(parseFeedTarget("postgresql://u@127.0.0.1/db?table=books&key=url", true).overwrite, false);
  assert.equal(parseFeedTarget("postgres://u@127.0.0.1/db?table=public.books", false).format, "jsonl");
  const base = "postgresql://u:hunter2@127.0.0.1:5432/db";
  assert.throws(() => parseFeedTarget(base, false), usage(/^output postgresql:\/\/u:\*\*\*@.* names no table/));
  assert.throws(() => parseFeedTarget(`${base}?table=a;drop`, false), usage(/table "a;drop" is not a plain name/));
  assert.throws(() => parseFeedTarget(`${base}?table=a&key=x-y`, false), usage(/key "x-y" is not a plain field/));
});

Deno.test("items are upserted on the key the user names, committed when the write resolves, and appended without one", async () => {
  const pg = await startPostgres();
  try {
    const lines: string[] = [];
    const log = { debug() {}, info: (line: string) => lines.push(line), warning() {}, error() {} };
    const upserted = `${pg.url}?table=books&key=url`;
    const appended = `${pg.url}?table=all_items`;
    const feeds = await FeedSet.open([parseFeedTarget(upserted, false), parseFeedTarget(appended, false)], log);
    await feeds.write([{ url: "a", price: 1 }, { url: "b", price: 1 }]);
    assert.deepEqual(await pg.query("SELECT key, item->>'price' FROM books ORDER BY key"), ["a\t1", "b\t1"]);
    // The page fetched again (a reclaimed lease): its row is replaced, not doubled; a key twice in a page, the last.
    await feeds.write([{ url: "a", price: 2 }, { url: "c", price: 1 }, { url: "c", price: 3 }]);
    assert.deepEqual(await pg.query("SELECT key, item->>'price' FROM books ORDER BY key"), ["a\t2", "b\t1", "c\t3"]);
    assert.deepEqual(await pg.query("SELECT count(*) FROM all_items"), ["5"]);
    await assert.rejects(feeds.write([{ title: "no url" }]), /an item has no string or number url to upsert on/);
    await feeds.close();
    assert.match(
      lines[0],
      /^Stored jsonl feed \(\d+ items\) in: postgresql:\/\/netweir@127\.0\.0\.1:\d+\/postgres\?table=books&key=url$/,
    );
  } finally {
    await pg.stop();
  }
});

Deno.test("a server that cannot be reached is one line naming it, password masked", async () => {
  const port = await freePort();
  await assert.rejects(
    PostgresFeed.open(`postgresql://u:hunter2@127.0.0.1:${port}/db?table=t`),
    (error: unknown) =>
      error instanceof QueueError &&
      error.message.startsWith(`cannot use postgresql://u:***@127.0.0.1:${port}/db?table=t: `) &&
      !error.message.includes("hunter2") && !error.message.includes("\n"),
  );
});

Deno.test("an upsert made while the server is down goes in once it is back", async () => {
  const pg = await startPostgres();
  try {
    const feed = await PostgresFeed.open(`${pg.url}?table=books&key=url`);
    await feed.write([{ url: "a", n: 1 }]);
    await pg.kill();
    const written = feed.write([{ url: "b", n: 1 }]);
    await sleep(1_000);
    await pg.start();
    await written;
    assert.deepEqual(await pg.query("SELECT key FROM books ORDER BY key"), ["a", "b"]);
    await feed.close();
  } finally {
    await pg.stop();
  }
});
