/**
 * Where an S3 feed's credentials, region and endpoint come from, looked for in the places and the order the AWS SDKs
 * use: the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) unless `AWS_PROFILE`
 * names a profile; then the profile (`AWS_PROFILE`, else `default`) in `~/.aws/credentials` and `~/.aws/config`
 * (or the files `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE` name). The region is `AWS_REGION`,
 * `AWS_DEFAULT_REGION`, the profile's `region`, else us-east-1; the endpoint `AWS_ENDPOINT_URL_S3`,
 * `AWS_ENDPOINT_URL`, the profile's `endpoint_url` (its `s3` block first), else AWS itself.
 *
 * Profiles that get credentials by running something (SSO, `credential_process`, assuming a role) are refused with
 * a message that says so, rather than half-supported: see docs/design/cloud_and_binary.md.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CloudError } from "../../errors.ts";
import { type IniFile, parseIni } from "./ini.ts";

/** A signing identity. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /** Where they were found, for messages: "the environment", "profile dev in /home/me/.aws/credentials". */
  readonly source: string;
}

/** Everything an S3 client needs besides the bucket. */
export interface S3Config {
  readonly credentials: AwsCredentials;
  readonly region: string;
  /** A custom endpoint (MinIO, R2, Ceph): requests go to ENDPOINT/BUCKET/KEY. Undefined for AWS itself. */
  readonly endpoint: URL | undefined;
}

/** What resolving looks at: the environment and the home directory (passed in, so tests need not change either). */
export interface AwsEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
}

const COMMAND_KEYS = ["credential_process", "sso_session", "sso_start_url", "role_arn", "web_identity_token_file"];

async function readIni(path: string): Promise<IniFile | undefined> {
  try {
    return parseIni(await readFile(path, "utf8"));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw new CloudError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function parseEndpoint(value: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CloudError(`${where} ${value} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CloudError(`${where} ${value} is not an http:// or https:// URL`);
  }
  return url;
}

/** Resolves the credentials, region and endpoint for S3; throws CloudError (exit 1) when no credentials are found. */
export async function resolveS3Config(environment: AwsEnvironment): Promise<S3Config> {
  const { env, home } = environment;
  const profileName = nonEmpty(env.AWS_PROFILE) ?? "default";
  const credentialsPath = nonEmpty(env.AWS_SHARED_CREDENTIALS_FILE) ?? join(home, ".aws", "credentials");
  const configPath = nonEmpty(env.AWS_CONFIG_FILE) ?? join(home, ".aws", "config");
  const [credentialsFile, configFile] = await Promise.all([readIni(credentialsPath), readIni(configPath)]);
  const fromCredentials = credentialsFile?.get(profileName);
  const fromConfig = configFile?.get(profileName === "default" ? "default" : `profile ${profileName}`) ??
    configFile?.get(profileName);

  const region = nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? nonEmpty(fromConfig?.get("region")) ??
    "us-east-1";

  let endpoint: URL | undefined;
  for (
    const [value, where] of [
      [env.AWS_ENDPOINT_URL_S3, "AWS_ENDPOINT_URL_S3"],
      [env.AWS_ENDPOINT_URL, "AWS_ENDPOINT_URL"],
      [fromConfig?.get("s3.endpoint_url"), `endpoint_url of profile ${profileName} in ${configPath}`],
      [fromConfig?.get("endpoint_url"), `endpoint_url of profile ${profileName} in ${configPath}`],
    ] as const
  ) {
    const given = nonEmpty(value);
    if (given) {
      endpoint = parseEndpoint(given, where);
      break;
    }
  }

  const credentials = credentialsFrom(env, profileName, [
    [fromCredentials, credentialsPath],
    [fromConfig, configPath],
  ]);
  return { credentials, region, endpoint };
}

function credentialsFrom(
  env: AwsEnvironment["env"],
  profileName: string,
  files: [Map<string, string> | undefined, string][],
): AwsCredentials {
  // As the SDKs do: a profile named in AWS_PROFILE is meant to be used, so it wins over keys in the environment.
  if (nonEmpty(env.AWS_PROFILE) === undefined) {
    const accessKeyId = nonEmpty(env.AWS_ACCESS_KEY_ID);
    const secretAccessKey = nonEmpty(env.AWS_SECRET_ACCESS_KEY);
    if (accessKeyId && secretAccessKey) {
      return { accessKeyId, secretAccessKey, sessionToken: nonEmpty(env.AWS_SESSION_TOKEN), source: "the environment" };
    }
    if (accessKeyId || secretAccessKey) {
      const missing = accessKeyId ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID";
      throw new CloudError(`AWS credentials in the environment are incomplete: ${missing} is not set`);
    }
  }
  for (const [section, path] of files) {
    if (!section) continue;
    const accessKeyId = nonEmpty(section.get("aws_access_key_id"));
    const secretAccessKey = nonEmpty(section.get("aws_secret_access_key"));
    if (accessKeyId && secretAccessKey) {
      const sessionToken = nonEmpty(section.get("aws_session_token"));
      return { accessKeyId, secretAccessKey, sessionToken, source: `profile ${profileName} in ${path}` };
    }
    const command = COMMAND_KEYS.find((key) => section.has(key));
    if (command) {
      throw new CloudError(
        `profile ${profileName} in ${path} gets its credentials through ${command}, which Netweir does not run; ` +
          "export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (for example with `aws configure export-credentials`)",
      );
    }
  }
  const looked = nonEmpty(env.AWS_PROFILE) === undefined ? "the environment and " : "";
  throw new CloudError(
    `no AWS credentials found for s3:// output (looked in ${looked}profile ${profileName} of ` +
      `${files.map(([, path]) => path).join(" and ")})`,
  );
}
