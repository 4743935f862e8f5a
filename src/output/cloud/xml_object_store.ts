/**
 * The object protocol S3 and Google Cloud Storage's XML API share: ListObjects for the start-up check, PutObject for
 * small files, and multipart upload (initiate, upload parts, complete) for large ones, read from the spool a part at
 * a time so that a 5 GB feed needs one part's worth of memory. A multipart upload that fails is aborted, so the store
 * does not keep (and bill for) its parts. What differs between the stores (addresses, signing) comes in as a
 * {@link ObjectEndpoint}.
 */
import { type FileHandle, open, stat } from "node:fs/promises";
import { readBytes } from "../feed_file.ts";
import { CloudError } from "../../errors.ts";
import type { CloudStore, CloudStoreOptions } from "./cloud_store.ts";
import { type CloudUrl, formatCloudUrl } from "./cloud_url.ts";
import { withRetries } from "./retry.ts";

/** Where a store is and how its requests are signed. */
export interface ObjectEndpoint {
  /** For messages: "S3 at AWS region eu-west-1", "GCS at http://127.0.0.1:9023". */
  readonly where: string;
  /** Where the credentials came from, for messages (never the credentials themselves). */
  readonly credentialSource: string;
  /** The bucket's URL, without a trailing slash. */
  bucketUrl(bucket: string): URL;
  /** A request ready to send: signed (SigV4), carrying a bearer token, or as it is for an emulator. */
  sign(method: string, url: URL, headers: Record<string, string>, body: Uint8Array | undefined): Promise<Request>;
  /** The region a refused request says the bucket is in, when that is why it was refused. */
  wrongRegion?(response: Response): string | undefined;
}

/** The smallest part both stores take (all but the last) and the most parts in one upload. */
const MIN_PART = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;
const DEFAULT_PART = 16 * 1024 * 1024;

/** RFC 3986 encoding of each path segment, the form SigV4 signs. */
function encodeKey(key: string): string {
  return key.split("/").map((segment) =>
    encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  ).join("/");
}

/** The `<Code>` and `<Message>` of an error document, as one short phrase. */
function describeError(status: number, body: string): string {
  const code = /<Code>([^<]*)<\/Code>/.exec(body)?.[1];
  const message = /<Message>([^<]*)<\/Message>/.exec(body)?.[1];
  if (code) return message ? `${code}: ${message}` : code;
  return `HTTP ${status}`;
}

/** What went wrong with a request that got no answer, without the runtime's wrapping (and the URL, said already). */
export function networkMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === "string") return cause.code;
  const message = typeof cause?.message === "string" ? cause.message : String((error as Error)?.message ?? error);
  return message.replace(/^error sending request for url \([^)]*\): /, "");
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

async function readPart(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const bytes = await readBytes(handle, position, length);
  if (bytes.length < length) throw new CloudError("the spool file shrank while it was being uploaded");
  return bytes;
}

/** A {@link CloudStore} speaking the S3 object protocol to one bucket and key. */
export class XmlObjectStore implements CloudStore {
  readonly url: string;
  readonly #target: CloudUrl;
  readonly #endpoint: ObjectEndpoint;
  readonly #partSize: number;
  readonly #threshold: number;
  readonly #delayScale: number;

  constructor(target: CloudUrl, endpoint: ObjectEndpoint, options: CloudStoreOptions = {}) {
    this.url = formatCloudUrl(target);
    this.#target = target;
    this.#endpoint = endpoint;
    this.#partSize = Math.max(options.partSize ?? DEFAULT_PART, MIN_PART);
    this.#threshold = options.multipartThreshold ?? this.#partSize;
    this.#delayScale = options.retryDelayScale ?? 1;
  }

  #objectUrl(query: Record<string, string> = {}): URL {
    const bucket = this.#endpoint.bucketUrl(this.#target.bucket).href.replace(/\/$/, "");
    const url = new URL(`${bucket}/${encodeKey(this.#target.key)}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url;
  }

  async #send(
    method: string,
    url: URL,
    body: Uint8Array | undefined,
    headers: Record<string, string> = {},
    timeoutSeconds = 300,
  ): Promise<Response> {
    try {
      return await withRetries(async () => {
        const request = await this.#endpoint.sign(method, url, headers, body);
        return await fetch(request, { signal: AbortSignal.timeout(timeoutSeconds * 1000) });
      }, { delayScale: this.#delayScale });
    } catch (error) {
      if (error instanceof CloudError) throw error;
      throw new CloudError(`cannot reach ${this.#endpoint.where}: ${networkMessage(error)}`, { cause: error });
    }
  }

  async check(): Promise<void> {
    const { bucket } = this.#target;
    // Listing no keys: as cheap as HeadBucket, needs the same permission, and unlike HEAD its answer has a body
    // saying why a request was refused.
    const url = this.#endpoint.bucketUrl(bucket);
    url.searchParams.set("max-keys", "0");
    const response = await this.#send("GET", url, undefined, {}, 30);
    const body = await response.text();
    if (response.ok) return;
    const reason = describeError(response.status, body);
    if (response.status === 404) {
      throw new CloudError(`bucket ${bucket} does not exist in ${this.#endpoint.where} (${reason})`);
    }
    const region = this.#endpoint.wrongRegion?.(response);
    if (region) throw new CloudError(`bucket ${bucket} is in region ${region}; set AWS_REGION=${region}`);
    throw new CloudError(
      `${this.#endpoint.where} refused access to bucket ${bucket} with credentials from ` +
        `${this.#endpoint.credentialSource} (${reason})`,
    );
  }

  async upload(path: string, contentType: string): Promise<void> {
    const { size } = await stat(path);
    if (size > this.#threshold) return await this.#multipart(path, size, contentType);
    const handle = await open(path, "r");
    let bytes: Uint8Array;
    try {
      bytes = await readPart(handle, 0, size);
    } finally {
      await handle.close();
    }
    await this.#expect("upload", await this.#send("PUT", this.#objectUrl(), bytes, { "content-type": contentType }));
  }

  async #expect(what: string, response: Response): Promise<string> {
    const body = await response.text();
    // Completing a multipart upload can answer 200 with an error document.
    if (response.ok && !/^\s*(<\?xml[^>]*>\s*)?<Error>/.test(body)) return body;
    throw new CloudError(`${what} refused by ${this.#endpoint.where} (${describeError(response.status, body)})`);
  }

  async #multipart(path: string, size: number, contentType: string): Promise<void> {
    const partSize = Math.max(this.#partSize, Math.ceil(size / MAX_PARTS));
    const started = await this.#send("POST", this.#objectUrl({ uploads: "" }), undefined, {
      "content-type": contentType,
    });
    const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await this.#expect("multipart upload", started))?.[1];
    if (!uploadId) throw new CloudError(`${this.#endpoint.where} started a multipart upload without an UploadId`);
    const handle = await open(path, "r");
    try {
      const parts: string[] = [];
      for (let offset = 0, number = 1; offset < size; offset += partSize, number++) {
        const bytes = await readPart(handle, offset, Math.min(partSize, size - offset));
        const response = await this.#send("PUT", this.#objectUrl({ partNumber: String(number), uploadId }), bytes);
        await this.#expect(`part ${number} of the upload`, response);
        const etag = response.headers.get("etag");
        if (!etag) throw new CloudError(`${this.#endpoint.where} gave part ${number} no ETag`);
        parts.push(`<Part><PartNumber>${number}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`);
      }
      const complete = new TextEncoder().encode(
        `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload>${parts.join("")}</CompleteMultipartUpload>`,
      );
      const completed = await this.#send("POST", this.#objectUrl({ uploadId }), complete, {
        "content-type": "application/xml",
      });
      await this.#expect("completing the upload", completed);
    } catch (error) {
      // Best effort: a store that cannot be reached now expires the parts by its own lifecycle rules.
      await this.#send("DELETE", this.#objectUrl({ uploadId }), undefined, {}, 30).then(
        (response) => response.body?.cancel(),
        () => {},
      );
      throw error;
    } finally {
      await handle.close();
    }
  }
}
