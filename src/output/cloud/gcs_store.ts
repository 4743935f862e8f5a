/**
 * Google Cloud Storage through its XML API, which speaks the same object protocol as S3 (multipart uploads included),
 * with an OAuth bearer token in place of a signature. `STORAGE_EMULATOR_HOST` sends every request to a local server
 * instead, without credentials, as Google's own client libraries do.
 */
import type { CloudEnvironment, CloudStoreOptions } from "./cloud_store.ts";
import type { CloudUrl } from "./cloud_url.ts";
import { CloudError } from "../../errors.ts";
import { googleTokenSource, type TokenSource } from "./google_credentials.ts";
import { type ObjectEndpoint, XmlObjectStore } from "./xml_object_store.ts";

const GCS = "https://storage.googleapis.com";

function emulatorOrigin(value: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  try {
    return new URL(withScheme);
  } catch {
    throw new CloudError(`STORAGE_EMULATOR_HOST ${value} is not a host:port or URL`);
  }
}

/** The GCS endpoint: Google's with a token, or an emulator's without. */
export function gcsEndpoint(base: URL, tokens: TokenSource | undefined): ObjectEndpoint {
  const origin = base.href.replace(/\/+$/, "");
  return {
    where: tokens ? "GCS" : `the GCS emulator at ${base.origin}`,
    credentialSource: tokens?.source ?? "nowhere (STORAGE_EMULATOR_HOST takes none)",
    bucketUrl: (bucket) => new URL(`${origin}/${encodeURIComponent(bucket)}`),
    async sign(method, url, headers, body) {
      const all: Record<string, string> = { ...headers };
      if (tokens) all.authorization = `Bearer ${await tokens.token()}`;
      return new Request(url, { method, headers: all, body: body as Uint8Array<ArrayBuffer> | undefined });
    },
  };
}

export const GcsStore = {
  /** Finds the credentials (CloudError when there are none), or the emulator. */
  async open(target: CloudUrl, environment: CloudEnvironment, options: CloudStoreOptions): Promise<XmlObjectStore> {
    const emulator = environment.env.STORAGE_EMULATOR_HOST?.trim();
    const endpoint = emulator
      ? gcsEndpoint(emulatorOrigin(emulator), undefined)
      : gcsEndpoint(new URL(GCS), await googleTokenSource(environment.env, environment.home));
    return new XmlObjectStore(target, endpoint, options);
  },
};
