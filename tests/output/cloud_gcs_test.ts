/**
 * gs:// feeds. No GCS emulator can be installed here (see docs/design/cloud_and_binary.md), so the upload code, which
 * speaks GCS's XML API, is tested against the S3 server that API is compatible with, reached through
 * STORAGE_EMULATOR_HOST as Google's clients reach an emulator: without credentials. The credential files are tested
 * for what can be checked without Google: how they are found and read, and that the assertion a service account
 * signs verifies with its public key.
 */
import assert from "node:assert/strict";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CloudError } from "../../src/errors.ts";
import { GcsStore } from "../../src/output/cloud/gcs_store.ts";
import { googleTokenSource, signedAssertion } from "../../src/output/cloud/google_credentials.ts";
import { FeedSet, parseFeedTarget } from "../../src/output/feeds.ts";
import { type S3Server, startS3Server } from "../helpers/s3_server.ts";
import { withTempDir } from "./temp_dir.ts";

const ITEMS = [{ title: "A, B", n: 1 }, { title: "C", n: 2 }];

async function withServer(body: (s3: S3Server, dir: string) => Promise<void>): Promise<void> {
  const s3 = await startS3Server({ buckets: ["feeds"] });
  try {
    await withTempDir((dir) => body(s3, dir));
  } finally {
    await s3.stop();
  }
}

Deno.test("a gs:// csv feed goes to the host STORAGE_EMULATOR_HOST names, and its spool is removed", async () => {
  await withServer(async (s3, dir) => {
    const feeds = await FeedSet.open([parseFeedTarget("gs://feeds/%(name)s/items.csv", true)], undefined, {
      cloudEnvironment: { env: { STORAGE_EMULATOR_HOST: `127.0.0.1:${s3.port}` }, home: dir },
      spoolRoot: dir,
      placeholders: { name: "shop" },
    });
    assert.deepEqual(feeds.paths, ["gs://feeds/shop/items.csv"]);
    await feeds.write(ITEMS);
    await feeds.close();
    const object = await s3.getObject("feeds", "shop/items.csv");
    assert.equal(new TextDecoder().decode(object!.body), 'title,n\r\n"A, B",1\r\nC,2\r\n');
    assert.deepEqual(await readdir(dir), []);
  });
});

Deno.test("a large gs:// feed goes up in parts, and a missing bucket is refused at open", async () => {
  await withServer(async (s3, dir) => {
    const size = 11 * 1024 * 1024;
    const path = join(dir, "big.jsonl");
    const bytes = new Uint8Array(size).map((_, i) => (i * 31) & 0xff);
    await writeFile(path, bytes);
    const env = { STORAGE_EMULATOR_HOST: s3.recordingEndpoint };
    const store = await GcsStore.open({ scheme: "gs", bucket: "feeds", key: "big.jsonl" }, { env, home: dir }, {
      partSize: 5 * 1024 * 1024,
    });
    await store.upload(path, "application/x-ndjson");
    assert.deepEqual((await s3.getObject("feeds", "big.jsonl"))!.body, bytes);
    assert.deepEqual(s3.recorded.map((line) => line.replace(/uploadId=[^&]+/, "uploadId=ID")), [
      "POST /feeds/big.jsonl?uploads=",
      "PUT /feeds/big.jsonl?partNumber=1&uploadId=ID",
      "PUT /feeds/big.jsonl?partNumber=2&uploadId=ID",
      "PUT /feeds/big.jsonl?partNumber=3&uploadId=ID",
      "POST /feeds/big.jsonl?uploadId=ID",
    ]);
    await assert.rejects(
      FeedSet.open([parseFeedTarget("gs://missing-bucket/a.jsonl", true)], undefined, {
        cloudEnvironment: { env, home: dir },
        spoolRoot: dir,
      }),
      (e: Error) =>
        e instanceof CloudError &&
        /^bucket missing-bucket does not exist in the GCS emulator at http:\/\/127\.0\.0\.1:\d+ \(NoSuchBucket/.test(
          e.message,
        ),
    );
  });
});

Deno.test("Google credentials: none, a missing file, a file that is not JSON or of an unknown type are refused", async () => {
  await withTempDir(async (home) => {
    const refused = async (env: Record<string, string>, pattern: RegExp) => {
      const error = await googleTokenSource(env, home).then(() => undefined, (e) => e);
      assert.ok(error instanceof CloudError, String(error));
      assert.match(error.message, pattern);
    };
    await refused({}, /^no Google credentials found for gs:\/\/ output/);
    await refused(
      { GOOGLE_APPLICATION_CREDENTIALS: join(home, "nope.json") },
      /names .*nope\.json, which does not exist/,
    );
    await writeFile(join(home, "bad.json"), "{ not json");
    await refused({ GOOGLE_APPLICATION_CREDENTIALS: join(home, "bad.json") }, /bad\.json is not JSON/);
    await writeFile(join(home, "ext.json"), JSON.stringify({ type: "external_account" }));
    await refused(
      { GOOGLE_APPLICATION_CREDENTIALS: join(home, "ext.json") },
      /of type external_account; Netweir takes/,
    );
    await writeFile(
      join(home, "sa.json"),
      JSON.stringify({
        type: "service_account",
        client_email: "a@b",
        private_key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
      }),
    );
    await refused(
      { GOOGLE_APPLICATION_CREDENTIALS: join(home, "sa.json") },
      /private_key in .*sa\.json is not a PKCS#8 RSA key/,
    );
    // The file gcloud writes is found without the variable.
    await mkdir(join(home, ".config", "gcloud"), { recursive: true });
    await writeFile(
      join(home, ".config", "gcloud", "application_default_credentials.json"),
      JSON.stringify({ type: "authorized_user" }),
    );
    await refused({}, /application_default_credentials\.json lacks client_id, client_secret or refresh_token/);
  });
});

Deno.test("a service account's assertion is an RS256 JWT that verifies with its public key", async () => {
  const pair = await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  const now = new Date("2026-12-01T10:00:00Z");
  const jwt = await signedAssertion(
    pair.privateKey,
    "feeds@project.iam.gserviceaccount.com",
    "https://oauth2.googleapis.com/token",
    now,
  );
  const [header, claims, signature] = jwt.split(".");
  const decode = (part: string) =>
    Uint8Array.from(atob(part.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(decode(header))), { alg: "RS256", typ: "JWT" });
  assert.deepEqual(JSON.parse(new TextDecoder().decode(decode(claims))), {
    iss: "feeds@project.iam.gserviceaccount.com",
    scope: "https://www.googleapis.com/auth/devstorage.read_write",
    aud: "https://oauth2.googleapis.com/token",
    iat: now.getTime() / 1000,
    exp: now.getTime() / 1000 + 3600,
  });
  const valid = await crypto.subtle.verify(
    "RSASSA-PKCS1-v1_5",
    pair.publicKey,
    decode(signature),
    new TextEncoder().encode(`${header}.${claims}`),
  );
  assert.equal(valid, true);
});
