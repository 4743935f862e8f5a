/**
 * A HAR 1.2 file: one entry per request sent (each redirect hop too, with its `redirectURL`), written as they come,
 * the closing brackets at close as a JSON feed gets them. Cookies are listed as HAR has them: the request's from the
 * Cookie header it was sent with, the response's from each Set-Cookie header with its attributes.
 */
import { Buffer } from "node:buffer";
import type { FileHandle } from "node:fs/promises";
import { type ArchivedExchange, reasonPhrase } from "./http_messages.ts";

const encoder = new TextEncoder();

interface HarCookie {
  name: string;
  value: string;
  path?: string;
  domain?: string;
  expires?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: string;
}

/** The cookies of a Cookie header: `a=1; b=2`. */
function requestCookies(headers: Array<[string, string]>): HarCookie[] {
  const cookies: HarCookie[] = [];
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== "cookie") continue;
    for (const part of value.split(";")) {
      const at = part.indexOf("=");
      if (at > 0) cookies.push({ name: part.slice(0, at).trim(), value: part.slice(at + 1).trim() });
    }
  }
  return cookies;
}

/** One Set-Cookie header as a HAR cookie, its attributes included; undefined when it has no name=value. */
function responseCookie(header: string): HarCookie | undefined {
  const [pair, ...attributes] = header.split(";");
  const at = pair.indexOf("=");
  if (at <= 0) return undefined;
  const cookie: HarCookie = { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
  for (const attribute of attributes) {
    const [key, ...rest] = attribute.split("=");
    const value = rest.join("=").trim();
    switch (key.trim().toLowerCase()) {
      case "path":
        cookie.path = value;
        break;
      case "domain":
        cookie.domain = value;
        break;
      case "expires": {
        const date = new Date(value);
        if (!Number.isNaN(date.getTime())) cookie.expires = date.toISOString();
        break;
      }
      case "max-age": {
        const seconds = Number(value);
        if (Number.isFinite(seconds)) cookie.expires = new Date(Date.now() + seconds * 1000).toISOString();
        break;
      }
      case "httponly":
        cookie.httpOnly = true;
        break;
      case "secure":
        cookie.secure = true;
        break;
      case "samesite":
        cookie.sameSite = value;
        break;
    }
  }
  return cookie;
}

const TEXTUAL = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json)|[^;]*\+(json|xml))/i;

function header(headers: Array<[string, string]>, name: string): string | undefined {
  return headers.find(([key]) => key.toLowerCase() === name)?.[1];
}

export class HarArchive {
  readonly #file: FileHandle;
  #entries = 0;

  constructor(file: FileHandle) {
    this.#file = file;
  }

  async start(software: string, version: string): Promise<void> {
    const creator = JSON.stringify({ name: software, version });
    await this.#file.write(`{"log":{"version":"1.2","creator":${creator},"pages":[],"entries":[\n`);
  }

  async add(exchanges: readonly ArchivedExchange[]): Promise<void> {
    for (const exchange of exchanges) {
      await this.#file.write((this.#entries++ === 0 ? "" : ",\n") + JSON.stringify(this.#entry(exchange)));
    }
  }

  #entry(exchange: ArchivedExchange): Record<string, unknown> {
    const url = new URL(exchange.url);
    const pairs = (headers: Array<[string, string]>) => headers.map(([name, value]) => ({ name, value }));
    const mimeType = header(exchange.responseHeaders, "content-type") ?? "";
    const content: Record<string, unknown> = { size: exchange.body.byteLength, mimeType };
    if (TEXTUAL.test(mimeType)) content.text = new TextDecoder().decode(exchange.body);
    else {
      content.text = Buffer.from(exchange.body).toString("base64");
      content.encoding = "base64";
    }
    const location = header(exchange.responseHeaders, "location");
    const body = exchange.requestBody;
    return {
      startedDateTime: new Date(exchange.at).toISOString(),
      time: exchange.millis,
      request: {
        method: exchange.method,
        url: exchange.url,
        httpVersion: exchange.httpVersion,
        cookies: requestCookies(exchange.requestHeaders),
        headers: pairs(exchange.requestHeaders),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(body === undefined
          ? {}
          : { postData: { mimeType: header(exchange.requestHeaders, "content-type") ?? "", text: body } }),
        headersSize: -1,
        bodySize: body === undefined ? 0 : encoder.encode(body).byteLength,
      },
      response: {
        status: exchange.status,
        statusText: reasonPhrase(exchange.status),
        httpVersion: exchange.httpVersion,
        cookies: exchange.setCookies.map(responseCookie).filter((cookie) => cookie !== undefined),
        headers: pairs(exchange.responseHeaders),
        content,
        redirectURL: location === undefined ? "" : new URL(location, exchange.url).href,
        headersSize: -1,
        bodySize: exchange.body.byteLength,
      },
      cache: {},
      timings: { send: 0, wait: exchange.millis, receive: 0 },
    };
  }

  async close(): Promise<void> {
    await this.#file.write("\n]}}\n");
    await this.#file.close();
  }
}
