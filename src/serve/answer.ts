/**
 * The shape of every JSON answer of `netweir serve`, as scrapyd writes its own: one JSON object followed by a
 * newline (scrapyd's clients and shell scripts reading answers line by line rely on it).
 */

/** A JSON answer: `body` serialised, a newline after it, `application/json`. */
export function jsonAnswer(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body) + "\n", {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
