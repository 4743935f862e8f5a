/**
 * Masking what a job was given before it is shown anywhere (listjobs.json, jobstats.json, its log, the pages): the
 * passwords of `http_auth`, credentials in URLs (proxies, Redis queues: log.ts's maskSecrets), secret-looking headers
 * in `default_headers`, and spider arguments whose name says they are secret.
 */
import { maskSecrets } from "../log.ts";
import { findSetting } from "../settings/table.ts";

const MASK = "***";

/**
 * Headers whose value is a credential: any name that says so (Authorization, Cookie, X-Token, X-Api-Key,
 * X-Session-Id and the like), not a list of the known ones, since services name their own.
 */
const SECRET_HEADER = /auth|cookie|token|secret|pass|api-?key|session/i;

/** Spider argument names that say their value is a secret (`authorization` does, `author` and `authority` do not). */
const SECRET_ARGUMENT = /pass|pwd|secret|token|api_?key|credential|cookie|session|authoriz|auth(?!or)/i;

/** `http_auth` as HOST=USER:PASSWORD[,...] or as JSON: every password masked, the hosts and users kept. */
function maskAuthMap(value: string): string {
  const text = value.trim();
  if (text.startsWith("{")) return text.replace(/("password"\s*:\s*")(?:[^"\\]|\\.)*"/g, `$1${MASK}"`);
  return text.split(",").map((entry) => {
    const colon = entry.indexOf(":");
    return colon < 0 ? entry : `${entry.slice(0, colon + 1)}${MASK}`;
  }).join(",");
}

/** `default_headers` JSON: the values of credential headers masked. */
function maskHeaders(value: string): string {
  return value.replace(
    /"([^"\\]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g,
    (whole, name, colon) => SECRET_HEADER.test(name) ? `"${name}"${colon}"${MASK}"` : whole,
  );
}

/**
 * A webhook URL as it may be shown: its scheme and host, the rest masked. A chat service's incoming webhook
 * (Slack's hooks.slack.com/services/T../B../XXXX, Mattermost's /hooks/ID) is a secret in its path, not in a password,
 * so the path and query go whole. Text that is not a URL is masked whole.
 */
export function maskWebhookUrl(value: string): string {
  const parsed = URL.parse(value.trim());
  if (parsed === null || parsed.host === "") return value.trim() === "" || value.trim() === "null" ? value : MASK;
  const rest = parsed.pathname === "/" && parsed.search === "" ? "/" : `/${MASK}`;
  return `${parsed.protocol}//${parsed.host}${rest}`;
}

/** One setting's value, masked as its setting needs (the key in either spelling). */
export function maskSetting(key: string, value: string): string {
  const cli = findSetting(key)?.cli;
  if (cli === "alert_webhook") return maskWebhookUrl(value);
  if (cli === "http_auth") return maskAuthMap(value);
  if (cli === "default_headers") return maskSecrets(maskHeaders(value));
  return maskSecrets(value);
}

/** One spider argument's value: all of it when its name says it is secret, else any credentials in URLs. */
export function maskArgument(name: string, value: string): string {
  return SECRET_ARGUMENT.test(name) ? MASK : maskSecrets(value);
}

/** "KEY=VALUE" pairs as an object of masked values (the first "=" splits). */
export function maskedPairs(pairs: readonly string[], mask: (key: string, value: string) => string) {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const key = eq < 0 ? pair : pair.slice(0, eq);
    out[key] = eq < 0 ? "" : mask(key, pair.slice(eq + 1));
  }
  return out;
}

/** Every string inside a JSON value passed through maskSecrets (a job's stats: error messages may hold URLs). */
export function maskStrings(value: unknown): unknown {
  if (typeof value === "string") return maskSecrets(value);
  if (Array.isArray(value)) return value.map(maskStrings);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, maskStrings(inner)]));
  }
  return value;
}
