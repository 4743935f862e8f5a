/**
 * Reading an HTTP/1.x request head (RFC 9112) for the job server's front in http_server.ts: the request line, the
 * header fields, and what they say about the body. Strict where laxness is how request smuggling starts (Content-Length
 * conflicts, Transfer-Encoding, folded lines, bare CR) and lenient where RFC 9112 allows it (bare LF line ends).
 */

/** A request the server answers with `status` and closes, without calling the handler. */
export class RequestError extends Error {
  override name = "RequestError";
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** What the request head says. */
export interface ParsedHead {
  method: string;
  /** The request target in origin form (`/path?query`). */
  target: string;
  version: "1.0" | "1.1";
  /** Header fields as received, in order (names as sent). */
  headers: [string, string][];
  /** The Host header (`name` or `name:port`), when there is one. */
  host: string | undefined;
  /** The whole URL when the target was in absolute form (`GET http://host/path`), which then overrides Host. */
  url: string | undefined;
  /** Body length from Content-Length; 0 without one. */
  contentLength: number;
  /** The client waits for `100 Continue` before sending its body. */
  expectContinue: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A host name, IPv4 address or bracketed IPv6 literal, and an optional port (RFC 3986 authority without userinfo). */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/;
/** Visible ASCII only: a target with spaces, controls or raw UTF-8 is not a well-formed request line. */
const ORIGIN_FORM = /^\/[\x21-\x7e]*$/;

/**
 * The offset just past the blank line that ends the head, or -1 while it has not arrived. Lines may end in CRLF or a
 * bare LF.
 */
export function headEnd(buffer: Uint8Array): number {
  for (let i = buffer.indexOf(10); i >= 0; i = buffer.indexOf(10, i + 1)) {
    if (buffer[i + 1] === 10) return i + 2;
    if (buffer[i + 1] === 13 && buffer[i + 2] === 10) return i + 3;
  }
  return -1;
}

/**
 * Parses a request head (decoded as latin1, ending with its blank line). Throws {@link RequestError} with the status
 * to answer: 400 malformed, 411/501 for a Transfer-Encoding (no chunked request bodies), 413 for a body over
 * `maxBodyBytes`, 417 for an unknown Expect, 505 for an HTTP version other than 1.0 and 1.1.
 */
export function parseHead(text: string, maxBodyBytes: number): ParsedHead {
  const lines = text.split("\n").map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.some((line) => line.includes("\r"))) throw new RequestError(400, "a bare CR in the request head");
  const [method, target, protocol, ...rest] = (lines.shift() ?? "").split(" ");
  if (rest.length > 0 || !method || !target || !protocol || !TOKEN.test(method)) {
    throw new RequestError(400, "a malformed request line");
  }
  if (!/^HTTP\/\d\.\d$/.test(protocol)) throw new RequestError(400, "a malformed request line");
  if (protocol !== "HTTP/1.1" && protocol !== "HTTP/1.0") {
    throw new RequestError(505, `${protocol} is not supported; use HTTP/1.1`);
  }
  const version = protocol === "HTTP/1.1" ? "1.1" : "1.0";

  const headers: [string, string][] = [];
  for (const line of lines) {
    if (line.startsWith(" ") || line.startsWith("\t")) throw new RequestError(400, "a folded header line");
    const colon = line.indexOf(":");
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name)) throw new RequestError(400, "a malformed header line");
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    // deno-lint-ignore no-control-regex -- control characters are exactly what is being refused
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw new RequestError(400, `a control character in ${name}`);
    headers.push([name, value]);
  }
  const all = (wanted: string) => headers.filter(([name]) => name.toLowerCase() === wanted).map(([, value]) => value);

  if (all("transfer-encoding").length > 0) {
    const chunked = all("transfer-encoding").join(",").toLowerCase().includes("chunked");
    throw chunked
      ? new RequestError(411, "chunked request bodies are not accepted; send a Content-Length")
      : new RequestError(501, "Transfer-Encoding is not supported");
  }
  const lengths = all("content-length").flatMap((value) => value.split(",")).map((value) => value.trim());
  if (lengths.some((value) => !/^\d+$/.test(value)) || new Set(lengths).size > 1) {
    throw new RequestError(400, "a malformed Content-Length");
  }
  const contentLength = lengths.length > 0 ? Number(lengths[0]) : 0;
  if (contentLength > maxBodyBytes) {
    throw new RequestError(413, `the request body is over ${maxBodyBytes} bytes`);
  }

  const hosts = all("host");
  if (hosts.length > 1) throw new RequestError(400, "more than one Host header");
  if (hosts.length === 0 && version === "1.1") throw new RequestError(400, "an HTTP/1.1 request without Host");
  const host = hosts[0] || undefined;
  if (host !== undefined && !HOST.test(host)) throw new RequestError(400, "a malformed Host header");

  let url: string | undefined;
  if (/^https?:\/\//i.test(target)) {
    url = absoluteUrl(target);
  } else if (!ORIGIN_FORM.test(target)) {
    throw new RequestError(400, "a malformed request target");
  }

  const expect = all("expect").join(",").trim().toLowerCase();
  if (expect !== "" && expect !== "100-continue") throw new RequestError(417, `Expect: ${expect} is not supported`);

  return {
    method,
    target: url === undefined ? target : new URL(url).pathname + new URL(url).search,
    version,
    headers,
    host,
    url,
    contentLength,
    expectContinue: expect === "100-continue" && version === "1.1",
  };
}

/** An absolute-form target, which RFC 9112 says a server must accept; only http: URLs, since there is no TLS here. */
function absoluteUrl(target: string): string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new RequestError(400, "a malformed request target");
  }
  if (url.protocol !== "http:" || url.username || url.password || /[^\x21-\x7e]/.test(target)) {
    throw new RequestError(400, "a malformed request target");
  }
  return url.href;
}
