/**
 * OAuth access tokens for Google Cloud Storage, from the places Google's client libraries look (Application Default
 * Credentials): the JSON file `GOOGLE_APPLICATION_CREDENTIALS` names, else the one `gcloud auth application-default
 * login` writes (~/.config/gcloud/application_default_credentials.json). A service-account key signs a JWT (RS256,
 * with WebCrypto) that its token_uri exchanges for a token; a user's file carries a refresh token. A token is kept
 * until a minute before it expires.
 *
 * The metadata server of Google's own machines is not asked: see docs/design/cloud_and_binary.md.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CloudError } from "../../errors.ts";

const SCOPE = "https://www.googleapis.com/auth/devstorage.read_write";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";

/** Something that hands out a current access token. */
export interface TokenSource {
  /** Where the credentials came from, for messages. */
  readonly source: string;
  token(): Promise<string>;
}

interface KeyFile {
  type?: string;
  client_email?: string;
  private_key?: string;
  token_uri?: string;
  client_id?: string;
  client_secret?: string;
  refresh_token?: string;
}

function base64url(bytes: Uint8Array | string): string {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  let binary = "";
  for (const byte of data) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Imports a PEM PKCS#8 private key (the `private_key` of a service-account file) for RS256 signing. */
async function importKey(pem: string, path: string): Promise<CryptoKey> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  try {
    const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
    return await crypto.subtle.importKey("pkcs8", der, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
      "sign",
    ]);
  } catch {
    throw new CloudError(`the private_key in ${path} is not a PKCS#8 RSA key`);
  }
}

/** A service account's signed assertion (RFC 7523), valid for an hour. */
export async function signedAssertion(key: CryptoKey, email: string, audience: string, now: Date): Promise<string> {
  const issued = Math.floor(now.getTime() / 1000);
  const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const claims = base64url(
    JSON.stringify({ iss: email, scope: SCOPE, aud: audience, iat: issued, exp: issued + 3600 }),
  );
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(`${header}.${claims}`));
  return `${header}.${claims}.${base64url(new Uint8Array(signature))}`;
}

async function exchange(tokenUri: string, form: Record<string, string>, source: string) {
  let response: Response;
  try {
    response = await fetch(tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new CloudError(`cannot reach ${new URL(tokenUri).origin} for a token: ${(error as Error).message}`);
  }
  const text = await response.text();
  let answer: { access_token?: string; expires_in?: number; error?: string; error_description?: string } = {};
  try {
    answer = JSON.parse(text);
  } catch { /* said below */ }
  if (!response.ok || typeof answer.access_token !== "string") {
    const why = answer.error
      ? `${answer.error}${answer.error_description ? `: ${answer.error_description}` : ""}`
      : `HTTP ${response.status}`;
    throw new CloudError(`Google refused the credentials from ${source} (${why})`);
  }
  return { token: answer.access_token, expiresIn: answer.expires_in ?? 3600 };
}

/** Keeps a token until a minute before it expires. */
function cached(source: string, fetchToken: () => Promise<{ token: string; expiresIn: number }>): TokenSource {
  let current: { token: string; until: number } | undefined;
  return {
    source,
    async token() {
      if (current && Date.now() < current.until) return current.token;
      const { token, expiresIn } = await fetchToken();
      current = { token, until: Date.now() + Math.max(0, expiresIn - 60) * 1000 };
      return token;
    },
  };
}

async function readKeyFile(path: string): Promise<KeyFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw new CloudError(`cannot read Google credentials ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as KeyFile;
  } catch {
    throw new CloudError(`Google credentials ${path} is not JSON`);
  }
}

/** The token source Application Default Credentials give; CloudError when there are none or the file is bad. */
export async function googleTokenSource(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): Promise<TokenSource> {
  const named = env.GOOGLE_APPLICATION_CREDENTIALS?.trim();
  const path = named || join(home, ".config", "gcloud", "application_default_credentials.json");
  const file = await readKeyFile(path);
  if (!file) {
    if (named) throw new CloudError(`GOOGLE_APPLICATION_CREDENTIALS names ${path}, which does not exist`);
    throw new CloudError(
      `no Google credentials found for gs:// output (set GOOGLE_APPLICATION_CREDENTIALS to a service-account key ` +
        `file, or run gcloud auth application-default login)`,
    );
  }
  const source = named ? `GOOGLE_APPLICATION_CREDENTIALS (${path})` : path;
  if (file.type === "service_account") {
    if (!file.client_email || !file.private_key) {
      throw new CloudError(`service-account file ${path} lacks client_email or private_key`);
    }
    const key = await importKey(file.private_key, path);
    const tokenUri = file.token_uri ?? DEFAULT_TOKEN_URI;
    const email = file.client_email;
    return cached(source, async () =>
      exchange(tokenUri, {
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion: await signedAssertion(key, email, tokenUri, new Date()),
      }, source));
  }
  if (file.type === "authorized_user") {
    if (!file.client_id || !file.client_secret || !file.refresh_token) {
      throw new CloudError(`credentials file ${path} lacks client_id, client_secret or refresh_token`);
    }
    const form = {
      grant_type: "refresh_token",
      client_id: file.client_id,
      client_secret: file.client_secret,
      refresh_token: file.refresh_token,
    };
    return cached(source, () => exchange(file.token_uri ?? DEFAULT_TOKEN_URI, form, source));
  }
  throw new CloudError(
    `Google credentials ${path} are of type ${
      file.type ?? "(none)"
    }; Netweir takes service_account and authorized_user`,
  );
}
