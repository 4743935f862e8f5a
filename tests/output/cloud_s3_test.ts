import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../src/errors.ts";
import { CloudError } from "../../src/errors.ts";
import { S3Store } from "../../src/output/cloud/s3_store.ts";
import { FeedSet, parseFeedTarget } from "../../src/output/feeds.ts";
import { placeholderTime } from "../../src/output/placeholders.ts";
import { S3_ACCESS_KEY, S3_SECRET_KEY, type S3Server, startS3Server } from "../helpers/s3_server.ts";
import { recordingLogger, withTempDir } from "./temp_dir.ts";

const ITEMS = [{ title: "A, B", n: 1 }, { title: 'Say "hi"', n: 2 }];

/** The environment of a user whose keys are exported and whose store is the test server. */
function envFor(s3: S3Server, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
    AWS_ENDPOINT_URL: s3.endpoint,
    ...extra,
  };
}

async function withS3(body: (s3: S3Server, dir: string) => Promise<void>): Promise<void> {
  const s3 = await startS3Server({ buckets: ["feeds"] });
  try {
    await withTempDir((dir) => body(s3, dir));
  } finally {
    await s3.stop();
  }
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("a jsonl feed to s3:// is spooled locally, uploaded at close, and the spool removed", async () => {
  await withS3(async (s3, dir) => {
    const log = recordingLogger();
    const feeds = await FeedSet.open([parseFeedTarget("s3://feeds/out/items.jsonl", false)], log, {
      cloudEnvironment: { env: envFor(s3), home: dir },
      spoolRoot: dir,
    });
    await feeds.write(ITEMS);
    assert.equal(await s3.getObject("feeds", "out/items.jsonl"), null, "nothing is uploaded before the close");
    const [spool] = await readdir(dir);
    assert.match(spool, /^netweir-spool-/);
    assert.equal(
      await readFile(join(dir, spool, "items.jsonl"), "utf8"),
      ITEMS.map((i) => JSON.stringify(i) + "\n").join(""),
    );
    await feeds.close();
    const object = await s3.getObject("feeds", "out/items.jsonl");
    assert.ok(object);
    assert.equal(text(object.body), ITEMS.map((item) => JSON.stringify(item) + "\n").join(""));
    assert.equal(object.headers.get("content-type"), "application/x-ndjson");
    assert.deepEqual(await readdir(dir), [], "the spool is gone once the upload succeeded");
    assert.deepEqual(log.lines.map((line) => line.message), [
      `feed s3://feeds/out/items.jsonl is spooled to ${
        join(dir, spool, "items.jsonl")
      } until it is uploaded at the end of the crawl`,
      "Stored jsonl feed (2 items) in: s3://feeds/out/items.jsonl",
    ]);
  });
});

Deno.test("every format can go to s3://, csv and parquet included", async () => {
  await withS3(async (s3, dir) => {
    const paths = ["s3://feeds/a.csv", "s3://feeds/a.json", "s3://feeds/a.xml", "s3://feeds/a.parquet"];
    const feeds = await FeedSet.open(paths.map((path) => parseFeedTarget(path, true)), undefined, {
      cloudEnvironment: { env: envFor(s3), home: dir },
      spoolRoot: dir,
    });
    await feeds.write(ITEMS);
    await feeds.close();
    assert.equal(text((await s3.getObject("feeds", "a.csv"))!.body), 'title,n\r\n"A, B",1\r\n"Say ""hi""",2\r\n');
    assert.deepEqual(JSON.parse(text((await s3.getObject("feeds", "a.json"))!.body)), ITEMS);
    assert.match(text((await s3.getObject("feeds", "a.xml"))!.body), /<item><title>A, B<\/title><n>1<\/n><\/item>/);
    const parquet = (await s3.getObject("feeds", "a.parquet"))!.body;
    assert.equal(text(parquet.subarray(0, 4)), "PAR1");
    assert.equal(text(parquet.subarray(parquet.length - 4)), "PAR1");
    assert.deepEqual(await readdir(dir), []);
  });
});

Deno.test("a file larger than the threshold goes up as a multipart upload of several parts", async () => {
  await withS3(async (s3, dir) => {
    const size = 12 * 1024 * 1024 + 3;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 10)) & 0xff;
    const path = join(dir, "big.jsonl");
    await writeFile(path, bytes);
    const store = await S3Store.open({ scheme: "s3", bucket: "feeds", key: "big/items.jsonl" }, {
      env: envFor(s3, { AWS_ENDPOINT_URL: s3.recordingEndpoint }),
      home: dir,
    }, { partSize: 5 * 1024 * 1024 });
    await store.upload(path, "application/x-ndjson");
    const object = await s3.getObject("feeds", "big/items.jsonl");
    assert.ok(object);
    assert.equal(object.body.length, size);
    assert.deepEqual(object.body, bytes);
    const lines = s3.recorded.map((line) => line.replace(/uploadId=[^&]+/, "uploadId=ID"));
    assert.deepEqual(lines, [
      "POST /feeds/big/items.jsonl?uploads=",
      "PUT /feeds/big/items.jsonl?partNumber=1&uploadId=ID",
      "PUT /feeds/big/items.jsonl?partNumber=2&uploadId=ID",
      "PUT /feeds/big/items.jsonl?partNumber=3&uploadId=ID",
      "POST /feeds/big/items.jsonl?uploadId=ID",
    ]);
  });
});

Deno.test("an upload that fails keeps the spool, names it in the error, and the items are in it", async () => {
  await withS3(async (s3, dir) => {
    const feeds = await FeedSet.open([parseFeedTarget("s3://feeds/items.jsonl", true)], undefined, {
      cloudEnvironment: { env: envFor(s3), home: dir },
      spoolRoot: dir,
      cloudOptions: { retryDelayScale: 0 },
    });
    await feeds.write(ITEMS);
    await s3.stop();
    const error = await feeds.close().then(() => undefined, (e) => e);
    assert.ok(error instanceof CloudError, String(error));
    const match =
      /^upload to s3:\/\/feeds\/items\.jsonl failed: cannot reach S3 at http:\/\/127\.0\.0\.1:\d+: .*[Cc]onnect.*; the items are kept in (\S+)$/
        .exec(error.message);
    assert.ok(match, error.message);
    assert.ok(match[1].startsWith(dir));
    assert.equal(await readFile(match[1], "utf8"), ITEMS.map((item) => JSON.stringify(item) + "\n").join(""));
  });
});

Deno.test("an upload the store refuses keeps the spool too, and says what the store said", async () => {
  await withS3(async (s3, dir) => {
    const feeds = await FeedSet.open([parseFeedTarget("s3://feeds/items.csv", true)], undefined, {
      cloudEnvironment: { env: envFor(s3), home: dir },
      spoolRoot: dir,
    });
    await feeds.write(ITEMS);
    await s3.deleteBucket("feeds");
    const error = await feeds.close().then(() => undefined, (e) => e);
    assert.ok(error instanceof CloudError, String(error));
    const match =
      /^upload to s3:\/\/feeds\/items\.csv failed: upload refused by S3 at \S+ \(NoSuchBucket[^)]*\); the items are kept in (\S+)$/
        .exec(error.message);
    assert.ok(match, error.message);
    assert.equal(await readFile(match[1], "utf8"), 'title,n\r\n"A, B",1\r\n"Say ""hi""",2\r\n');
  });
});

Deno.test("a wrong secret, an unknown key id, a missing bucket and no credentials are refused when the feeds open", async () => {
  await withS3(async (s3, dir) => {
    const open = (path: string, env: Record<string, string>) =>
      FeedSet.open([parseFeedTarget(path, true)], undefined, { cloudEnvironment: { env, home: dir }, spoolRoot: dir });
    const wrongSecret = await open("s3://feeds/a.jsonl", envFor(s3, { AWS_SECRET_ACCESS_KEY: "not-the-secret" })).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(wrongSecret instanceof CloudError);
    assert.match(
      wrongSecret.message,
      /refused access to bucket feeds with credentials from the environment \(SignatureDoesNotMatch/,
    );
    assert.ok(!wrongSecret.message.includes("not-the-secret"));
    await assert.rejects(open("s3://feeds/a.jsonl", envFor(s3, { AWS_ACCESS_KEY_ID: "NOBODY" })), /InvalidAccessKeyId/);
    await assert.rejects(
      open("s3://nowhere/a.jsonl", envFor(s3)),
      (e: Error) =>
        e instanceof CloudError &&
        /^bucket nowhere does not exist in S3 at http:\/\/127\.0\.0\.1:\d+ \(NoSuchBucket/.test(e.message),
    );
    await assert.rejects(
      open("s3://feeds/a.jsonl", { AWS_ENDPOINT_URL: s3.endpoint }),
      (e: Error) => e instanceof CloudError && /^no AWS credentials found for s3:\/\/ output/.test(e.message),
    );
    await assert.rejects(
      open("s3://feeds/a.jsonl", envFor(s3, { AWS_SECRET_ACCESS_KEY: "" })),
      /AWS_SECRET_ACCESS_KEY is not set/,
    );
    assert.deepEqual(await readdir(dir), [], "no spool was made for a refused feed");
    assert.deepEqual(await s3.listKeys("feeds"), []);
  });
});

Deno.test("AWS_PROFILE picks keys from ~/.aws/credentials and the endpoint and region from ~/.aws/config", async () => {
  await withS3(async (s3, dir) => {
    await mkdir(join(dir, ".aws"));
    await writeFile(
      join(dir, ".aws", "credentials"),
      `[default]\naws_access_key_id = WRONG\naws_secret_access_key = WRONG\n\n[dev]\naws_access_key_id = ${S3_ACCESS_KEY}\naws_secret_access_key = ${S3_SECRET_KEY}\n`,
    );
    await writeFile(
      join(dir, ".aws", "config"),
      `[profile dev]\nregion = eu-west-1\ns3 =\n  endpoint_url = ${s3.endpoint}\n`,
    );
    const spoolRoot = join(dir, "spool");
    await mkdir(spoolRoot);
    // Keys in the environment lose to the profile AWS_PROFILE names, as in the SDKs.
    const env = { AWS_PROFILE: "dev", AWS_ACCESS_KEY_ID: "WRONG", AWS_SECRET_ACCESS_KEY: "WRONG" };
    const feeds = await FeedSet.open([parseFeedTarget("s3://feeds/p.jsonl", true)], undefined, {
      cloudEnvironment: { env, home: dir },
      spoolRoot,
    });
    await feeds.write(ITEMS);
    await feeds.close();
    assert.ok(await s3.getObject("feeds", "p.jsonl"));
    // Without AWS_PROFILE the default profile's (wrong) keys are used, and refused.
    await assert.rejects(
      FeedSet.open([parseFeedTarget("s3://feeds/p.jsonl", true)], undefined, {
        cloudEnvironment: { env: { AWS_ENDPOINT_URL: s3.endpoint }, home: dir },
        spoolRoot,
      }),
      /with credentials from profile default in .*\.aws\/credentials \(InvalidAccessKeyId/,
    );
  });
});

Deno.test("placeholders %(name)s, %(time)s and spider attributes fill in the object's name", async () => {
  await withS3(async (s3, dir) => {
    const start = new Date("2026-12-01T10:20:30.456Z");
    const feeds = await FeedSet.open(
      [parseFeedTarget("s3://feeds/%(name)s/%(time)s-%(site)s.jsonl", true)],
      undefined,
      {
        cloudEnvironment: { env: envFor(s3), home: dir },
        spoolRoot: dir,
        placeholders: { name: "shop", time: placeholderTime(start), site: "books" },
      },
    );
    assert.deepEqual(feeds.paths, ["s3://feeds/shop/2026-12-01T10-20-30-books.jsonl"]);
    await feeds.write(ITEMS);
    await feeds.close();
    assert.deepEqual(await s3.listKeys("feeds"), ["shop/2026-12-01T10-20-30-books.jsonl"]);
    await assert.rejects(
      FeedSet.open([parseFeedTarget("s3://feeds/%(nope)s.jsonl", true)], undefined, {
        cloudEnvironment: { env: envFor(s3), home: dir },
        placeholders: { name: "shop" },
      }),
      (e: Error) => e instanceof UsageError && /unknown placeholder %\(nope\)s/.test(e.message),
    );
  });
});

Deno.test("object names with spaces and reserved characters, and a session token, are signed as the store checks them", async () => {
  await withS3(async (s3, dir) => {
    const key = "a dir/it's (1) + 50%*.jsonl";
    const feeds = await FeedSet.open([parseFeedTarget(`s3://feeds/${key}`, true)], undefined, {
      cloudEnvironment: { env: envFor(s3, { AWS_SESSION_TOKEN: "a-session-token" }), home: dir },
      spoolRoot: dir,
    });
    await feeds.write(ITEMS);
    await feeds.close();
    // (The server's listing escapes the apostrophe twice, so the object is read back by its name instead.)
    assert.equal((await s3.listKeys("feeds")).length, 1);
    const object = await s3.getObject("feeds", key);
    assert.equal(new TextDecoder().decode(object!.body), ITEMS.map((item) => JSON.stringify(item) + "\n").join(""));
  });
});

Deno.test("the same object twice, or a spool directory that cannot be written, is refused before any feed opens", async () => {
  await withS3(async (s3, dir) => {
    const local = join(dir, "keep.jsonl");
    await writeFile(local, '{"old":true}\n');
    const open = (paths: string[], spoolRoot: string) =>
      FeedSet.open(paths.map((path) => parseFeedTarget(path, true)), undefined, {
        cloudEnvironment: { env: envFor(s3), home: dir },
        spoolRoot,
      });
    await assert.rejects(
      open(["s3://feeds/a.jsonl", "S3://feeds/a.jsonl"], dir),
      (e: Error) => e instanceof UsageError && /S3:\/\/feeds\/a\.jsonl is given more than once/.test(e.message),
    );
    await assert.rejects(
      open([local, "s3://feeds/a.jsonl"], join(dir, "missing")),
      (e: Error) => e instanceof UsageError && /missing is not a writable directory \(set TMPDIR/.test(e.message),
    );
    assert.equal(await readFile(local, "utf8"), '{"old":true}\n', "the -O file was not emptied");
  });
});

Deno.test("malformed cloud addresses are usage errors naming what is wrong", () => {
  const bad = (path: string, pattern: RegExp) =>
    assert.throws(() => parseFeedTarget(path, false), (e: Error) => e instanceof UsageError && pattern.test(e.message));
  bad("s3://", /names no bucket/);
  bad("s3:///items.jsonl", /names no bucket/);
  bad("s3://feeds", /names no object in bucket feeds/);
  bad("gs://feeds/dir/", /names no object/);
  bad("s3://Bad_Bucket/items.jsonl", /Bad_Bucket is not a valid bucket name/);
  bad("s3://feeds/items.txt", /unsupported extension \.txt/);
  assert.equal(parseFeedTarget("S3://feeds/%(name)s/items.CSV", false).format, "csv");
  assert.equal(parseFeedTarget("gs://feeds/items.parquet", false).format, "parquet");
});
