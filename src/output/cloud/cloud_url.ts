/**
 * Cloud feed addresses: `s3://BUCKET/KEY` and `gs://BUCKET/KEY`. Parsed and checked before anything is opened, so a
 * malformed address is a usage error (exit 2) and never a failed upload an hour into a crawl.
 */
import { UsageError } from "../../errors.ts";

/** The stores a feed can be uploaded to. */
export type CloudScheme = "s3" | "gs";

/** A parsed cloud feed address. */
export interface CloudUrl {
  readonly scheme: CloudScheme;
  readonly bucket: string;
  /** The object's name inside the bucket, without a leading slash. */
  readonly key: string;
}

const CLOUD_PREFIX = /^(s3|gs):\/\//i;

/** Whether a feed path names a cloud store rather than a local file. */
export function isCloudPath(path: string): boolean {
  return CLOUD_PREFIX.test(path);
}

// Both stores' rules for bucket names, which agree on this much: 3 to 63 lower-case letters, digits, dots and dashes,
// starting and ending with a letter or digit (GCS allows underscores and longer dotted names; those are accepted too).
const BUCKET = /^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/;

/**
 * Parses `s3://BUCKET/KEY` or `gs://BUCKET/KEY`. Throws a UsageError naming the address when the bucket is missing or
 * not a valid bucket name, or the key is empty or ends in `/` (a folder, not an object).
 */
export function parseCloudUrl(path: string): CloudUrl {
  const match = CLOUD_PREFIX.exec(path);
  if (!match) throw new UsageError(`output ${path} is not an s3:// or gs:// address`);
  const scheme = match[1].toLowerCase() as CloudScheme;
  const rest = path.slice(match[0].length);
  const slash = rest.indexOf("/");
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const key = slash === -1 ? "" : rest.slice(slash + 1);
  if (bucket === "") throw new UsageError(`output ${path} names no bucket; write ${scheme}://BUCKET/KEY`);
  if (!BUCKET.test(bucket) || bucket.includes("..") || (scheme === "s3" && bucket.length > 63)) {
    throw new UsageError(
      `output ${path}: ${bucket} is not a valid bucket name (3-63 lower-case letters, digits, dots and dashes)`,
    );
  }
  if (key === "" || key.endsWith("/")) {
    throw new UsageError(`output ${path} names no object in bucket ${bucket}; write ${scheme}://${bucket}/KEY`);
  }
  if (key.length > 1024) throw new UsageError(`output ${path}: the object name is longer than 1024 characters`);
  return { scheme, bucket, key };
}

/** The address as written after parsing: `s3://bucket/key`. */
export function formatCloudUrl(url: CloudUrl): string {
  return `${url.scheme}://${url.bucket}/${url.key}`;
}
