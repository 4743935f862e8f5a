/**
 * A place a finished feed file is uploaded to. One implementation per store (S3, GCS), each loaded only when a feed
 * names it, so a crawl without cloud output never loads a signer or reads a credentials file.
 */
import type { CloudUrl } from "./cloud_url.ts";
import { importOwnModule } from "../../runtime/optional_module.ts";

/** A bucket and object a feed is uploaded to, with the credentials to do it. */
export interface CloudStore {
  /** The address as the user gave it (placeholders filled in): `s3://bucket/key`. */
  readonly url: string;
  /**
   * A cheap authenticated request that proves the credentials work and the bucket exists, made before the crawl
   * fetches anything. Throws CloudError (exit 1) naming the bucket and what the store said.
   */
  check(): Promise<void>;
  /**
   * Uploads the file at `path` as the object, replacing what was there: in one request when it is small, else in
   * parts (S3 multipart upload, GCS resumable upload) so that a file of many gigabytes never sits in memory. Throws
   * CloudError when the store refuses or stays unreachable after a few tries.
   */
  upload(path: string, contentType: string): Promise<void>;
}

/** Knobs the tests turn; the defaults are what a crawl uses. */
export interface CloudStoreOptions {
  /** Files larger than this go up in parts. */
  readonly multipartThreshold?: number;
  /** The size of each part (at least the store's minimum; grown for files that would need too many parts). */
  readonly partSize?: number;
  /** Scales the waits between tries (0 in tests that make a store fail on purpose). */
  readonly retryDelayScale?: number;
}

/** What opening a store looks at besides the URL: the environment and the home directory. */
export interface CloudEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
}

/** Opens the store a URL names, loading its module on first use. Credentials are resolved here (CloudError if none). */
export async function openCloudStore(
  url: CloudUrl,
  environment: CloudEnvironment,
  options: CloudStoreOptions = {},
): Promise<CloudStore> {
  if (url.scheme === "s3") {
    const { S3Store } = await importOwnModule<typeof import("./s3_store.ts")>(import.meta.url, "./s3_store.ts");
    return await S3Store.open(url, environment, options);
  }
  const { GcsStore } = await import("./gcs_store.ts");
  return await GcsStore.open(url, environment, options);
}
