/**
 * A real S3-compatible server per test, on a free port of 127.0.0.1: s3rver (the fork that checks Signature Version
 * 4), installed by scripts/test_setup.ts and run on Node 22, keeping its objects in a temporary directory. It knows
 * one identity, S3RVER / S3RVER; requests signed with anything else are refused as S3 refuses them.
 *
 * ```ts
 * const s3 = await startS3Server({ buckets: ["feeds"] });
 * try {
 *   const object = await s3.getObject("feeds", "items.jsonl");
 * } finally {
 *   await s3.stop();
 * }
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, request as httpRequest } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AwsClient } from "aws4fetch";
import { NODE22, S3_SERVER_DIR } from "../../scripts/test_setup.ts";

/** The identity the server accepts. */
export const S3_ACCESS_KEY = "S3RVER";
export const S3_SECRET_KEY = "S3RVER";

export interface S3Server {
  /** `http://127.0.0.1:PORT`, for AWS_ENDPOINT_URL. */
  readonly endpoint: string;
  readonly port: number;
  /**
   * `http://127.0.0.1:PORT` of a pass-through in front of the server that records each request line, for tests that
   * look at how an upload was made (one PUT or parts). Everything is forwarded to the server as it came.
   */
  readonly recordingEndpoint: string;
  /** `METHOD /path?query` of every request that came through {@link recordingEndpoint}, in order. */
  readonly recorded: string[];
  /** An object's body and headers, read with a signed GET; null when there is no such object. */
  getObject(bucket: string, key: string): Promise<{ body: Uint8Array; headers: Headers } | null>;
  /** The keys in a bucket. */
  listKeys(bucket: string): Promise<string[]>;
  /** Deletes an empty bucket, for a store that stops having the bucket a crawl was checked against. */
  deleteBucket(bucket: string): Promise<void>;
  /** Ends the server (and waits for it); its objects are removed. Safe to call twice. */
  stop(): Promise<void>;
}

// The server's own entry point is missing from its package, so it is started through its library API: a port the
// system picks, printed once it listens.
const LAUNCHER = `
const { createRequire } = require("node:module");
const S3rver = createRequire(process.argv[1] + "/")("@20minutes/s3rver");
const [, , directory, buckets] = process.argv;
new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory,
  configureBuckets: JSON.parse(buckets).map((name) => ({ name })) })
  .run().then((address) => console.log("listening " + address.port));
`;

/** Starts the server with the given buckets and waits until it listens. */
export async function startS3Server(options: { buckets?: string[] } = {}): Promise<S3Server> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-s3-"));
  const child: ChildProcess = spawn(
    NODE22,
    ["-e", LAUNCHER, join(S3_SERVER_DIR, "node_modules"), dir, JSON.stringify(options.buckets ?? [])],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start:\n${output}`)), 20_000);
    const onData = (chunk: Uint8Array) => {
      output += new TextDecoder().decode(chunk);
      const match = /listening (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    exited.then(() => reject(new Error(`s3rver exited at start:\n${output}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new AwsClient({
    accessKeyId: S3_ACCESS_KEY,
    secretAccessKey: S3_SECRET_KEY,
    region: "us-east-1",
    service: "s3",
    retries: 0,
  });
  const recorded: string[] = [];
  const recorder = createServer((incoming, outgoing) => {
    recorded.push(`${incoming.method} ${incoming.url}`);
    const forward = httpRequest(
      { host: "127.0.0.1", port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on("error", () => outgoing.destroy());
    incoming.pipe(forward);
  });
  const recorderPort = await new Promise<number>((resolve) => {
    recorder.listen(0, "127.0.0.1", () => resolve((recorder.address() as { port: number }).port));
  });
  let stopped = false;
  return {
    endpoint,
    port,
    recordingEndpoint: `http://127.0.0.1:${recorderPort}`,
    recorded,
    async getObject(bucket, key) {
      const response = await client.fetch(`${endpoint}/${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
      if (response.status === 404) {
        await response.body?.cancel();
        return null;
      }
      if (!response.ok) throw new Error(`GET ${bucket}/${key}: ${response.status} ${await response.text()}`);
      return { body: new Uint8Array(await response.arrayBuffer()), headers: response.headers };
    },
    async listKeys(bucket) {
      const response = await client.fetch(`${endpoint}/${bucket}?list-type=2`);
      const text = await response.text();
      if (!response.ok) throw new Error(`list ${bucket}: ${response.status} ${text}`);
      return [...text.matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1]);
    },
    async deleteBucket(bucket) {
      const response = await client.fetch(`${endpoint}/${bucket}`, { method: "DELETE" });
      const text = await response.text();
      if (!response.ok) throw new Error(`delete ${bucket}: ${response.status} ${text}`);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(resolve));
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
