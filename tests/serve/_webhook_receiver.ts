/**
 * A webhook server on 127.0.0.1 for the alert tests: records every POST it receives and answers as the test says
 * (a status, or never, to play a hung server), one answer per request in turn, then 200 (or what `answerRest` says).
 */

/** One webhook call received. */
export interface ReceivedCall {
  path: string;
  contentType: string | null;
  idempotencyKey: string | null;
  body: Record<string, unknown>;
  /** The status it was answered with ("hang" for one held open). */
  answer: Answer;
  at: number;
}

/** How to answer one request: an HTTP status, or "hang" to never answer (until the server closes). */
export type Answer = number | "hang";

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  calls: ReceivedCall[];
  /** How to answer once the given answers are used up (200 at first): 503 plays a server that is down. */
  answerRest(answer: Answer): void;
  /** Resolves once `n` calls (in all) have arrived; rejects after `timeoutMs` (a guard, not a measure). */
  waitForCalls(n: number, timeoutMs?: number): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

/** Starts a receiver; `answers` are used one per request, in order, and 200 after them. */
export function startWebhookReceiver(answers: Answer[] = []): WebhookReceiver {
  const calls: ReceivedCall[] = [];
  const hung = new Set<() => void>();
  const waiting = new Set<() => void>();
  const queue = [...answers];
  let rest: Answer = 200;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const text = await request.text();
    const answer = queue.shift() ?? rest;
    calls.push({
      path: new URL(request.url).pathname,
      contentType: request.headers.get("content-type"),
      idempotencyKey: request.headers.get("idempotency-key"),
      body: JSON.parse(text),
      answer,
      at: Date.now(),
    });
    for (const wake of waiting) wake();
    if (answer === "hang") {
      await new Promise<void>((resolve) => hung.add(resolve));
      return new Response("too late", { status: 200 });
    }
    return new Response(answer === 200 ? "ok" : "no", { status: answer });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    calls,
    answerRest(answer) {
      rest = answer;
    },
    waitForCalls(n, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const guard = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`${calls.length} webhook calls after ${timeoutMs} ms, not ${n}`));
        }, timeoutMs);
        const check = () => {
          if (calls.length < n) return;
          clearTimeout(guard);
          waiting.delete(check);
          resolve(calls.slice(0, n));
        };
        waiting.add(check);
        check();
      });
    },
    async close() {
      for (const release of hung) release();
      await server.shutdown();
    },
  };
}
