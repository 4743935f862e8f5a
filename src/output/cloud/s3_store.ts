/**
 * S3 and S3-compatible stores (MinIO, R2, Ceph): the shared object protocol, signed with AWS Signature Version 4 by
 * aws4fetch, at the address the configuration gives: path-style under a custom endpoint (which every compatible
 * store takes), virtual-hosted on AWS itself when the bucket's name allows it.
 */
import { AwsClient } from "aws4fetch";
import { resolveS3Config, type S3Config } from "./aws_config.ts";
import type { CloudEnvironment, CloudStoreOptions } from "./cloud_store.ts";
import type { CloudUrl } from "./cloud_url.ts";
import { type ObjectEndpoint, XmlObjectStore } from "./xml_object_store.ts";

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The S3 endpoint a configuration describes. */
export function s3Endpoint(config: S3Config): ObjectEndpoint {
  const { credentials, region, endpoint } = config;
  const client = new AwsClient({
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken,
    region,
    service: "s3",
    // Tries are the store's own, so that network errors are tried again too.
    retries: 0,
  });
  return {
    where: endpoint ? `S3 at ${endpoint.origin}` : `S3 in AWS region ${region}`,
    credentialSource: credentials.source,
    bucketUrl(bucket) {
      if (endpoint) return new URL(`${endpoint.href.replace(/\/+$/, "")}/${encodeURIComponent(bucket)}`);
      if (!bucket.includes(".")) return new URL(`https://${bucket}.s3.${region}.amazonaws.com/`);
      return new URL(`https://s3.${region}.amazonaws.com/${bucket}`);
    },
    async sign(method, url, headers, body) {
      // The payload's hash is signed too (rather than UNSIGNED-PAYLOAD), so a part damaged on the way is refused
      // even over plain HTTP to a local store.
      const hash = await sha256Hex(body ?? new Uint8Array());
      return await client.sign(url.href, {
        method,
        headers: { ...headers, "x-amz-content-sha256": hash },
        body: body as Uint8Array<ArrayBuffer> | undefined,
      });
    },
    wrongRegion(response) {
      const hint = response.headers.get("x-amz-bucket-region");
      return hint && hint !== region ? hint : undefined;
    },
  };
}

export const S3Store = {
  /** Resolves credentials, region and endpoint (CloudError when there are no credentials). */
  async open(target: CloudUrl, environment: CloudEnvironment, options: CloudStoreOptions): Promise<XmlObjectStore> {
    return new XmlObjectStore(target, s3Endpoint(await resolveS3Config(environment)), options);
  },
};
