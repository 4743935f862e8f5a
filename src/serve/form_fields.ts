/**
 * How many fields a request may carry, counted before they are parsed. The front lets a 1 MB body through, and a
 * body cut into tiny fields is the costliest to parse: 15,000 multipart parts held the event loop 0.4 to 0.8 s per
 * request (Deno's formData and the checks after it), 116,000 urlencoded pairs 0.1 to 0.4 s, during which the service
 * answered nobody. A job's 256 spider arguments and 256 settings and an endpoint's own parameters fit well below the
 * bound.
 */

/** The most fields the query string and a form body may have together. */
export const MAX_FORM_FIELDS = 1_024;

/** How many times `needle` occurs in `text`, or `max` if that many or more: counting stops there. */
function occurrences(text: string, needle: string, max: number): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1 && count < max; at = text.indexOf(needle, at + needle.length)) {
    count++;
  }
  return count;
}

/** The fields of a query string or urlencoded body, at most `MAX_FORM_FIELDS + 1` (an empty text has none). */
export function urlencodedFields(text: string): number {
  return text === "" ? 0 : occurrences(text, "&", MAX_FORM_FIELDS) + 1;
}

/** The multipart boundary a Content-Type names, or undefined. */
export function multipartBoundary(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

/**
 * The parts of a multipart body, at most `MAX_FORM_FIELDS + 1`: each part starts with `--BOUNDARY`, and so does the
 * closing delimiter. Read as latin1, one character a byte, so no byte sequence is invalid.
 */
export function multipartFields(body: Uint8Array, boundary: string): number {
  const text = new TextDecoder("latin1").decode(body);
  return Math.max(0, occurrences(text, `--${boundary}`, MAX_FORM_FIELDS + 2) - 1);
}

/** Why a request has too many fields, or undefined. */
export function tooManyFields(count: number): string | undefined {
  return count > MAX_FORM_FIELDS ? `the request has more than ${MAX_FORM_FIELDS} parameters` : undefined;
}
