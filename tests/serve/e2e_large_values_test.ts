/**
 * Long values against a running `netweir serve`: a 1 MB spider argument, the longest value it takes, and a job past
 * the limits left waiting in jobs.db. Once, the masking of secrets took time quadratic in a value's length: one
 * schedule.json with a 50 KB argument blocked the service for 14 s, a 1 MB one hung it, and a restart hung again on
 * the same waiting job. Every request here has a 60 s guard (a guard, not a measure): on that code each one hangs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_VALUE_LENGTH, tooManyProblem } from "../../src/serve/job_limits.ts";
import { type Params, poll, type ServeProcess, startServe, stopQuietly, storeWaitingJob } from "./_e2e_service.ts";
import { withTempDir } from "./_setup.ts";

const GUARD_MS = 60_000;

/** A POST or GET to the service, its answer's status and text, and how long it took in ms. */
async function timed(url: string, form?: Params): Promise<{ status: number; text: string; ms: number }> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form ?? {})) body.append(name, String(value));
  const start = performance.now();
  const response = await fetch(url, {
    method: form ? "POST" : "GET",
    body: form ? body : undefined,
    signal: AbortSignal.timeout(GUARD_MS),
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - start };
}

/** The fastest of `rounds` runs of `run`, in ms: the slower ones measure the machine's other work. */
async function fastest(rounds: number, run: () => Promise<{ ms: number }>): Promise<number> {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) best = Math.min(best, (await run()).ms);
  return best;
}

Deno.test("a 1 MB spider argument is refused in one line about as fast as a short bad one, and the service answers on", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const huge = { project: "shop", spider: "books", category: "a".repeat(1_000_000) };
      const refused = await timed(`${service.url}schedule.json`, huge);
      const answer = JSON.parse(refused.text);
      assert.equal(answer.status, "error");
      assert.equal(
        answer.message,
        `spider argument category is 1000000 characters long; a value can have at most ${MAX_VALUE_LENGTH}`,
      );
      const status = JSON.parse((await timed(`${service.url}daemonstatus.json`)).text);
      assert.deepEqual([status.status, status.pending, status.running], ["ok", 0, 0], "nothing was queued");

      // The request's own size costs something (1 MB sent and parsed); masking it must not. A short request refused
      // for its argument's name takes a few ms; on the quadratic code the 1 MB one never came back.
      const long = await fastest(3, () => timed(`${service!.url}schedule.json`, huge));
      const short = await fastest(3, () => timed(`${service!.url}schedule.json`, { ...huge, category: "x", _x: "1" }));
      assert.ok(long / short < 100, `refusing 1 MB took ${long.toFixed(1)} ms, a short request ${short.toFixed(1)} ms`);
    });
  } finally {
    await stopQuietly(service);
  }
});

/** A form body of `count` parameters `aNNNN=xx` after project and spider: each name different, or all one. */
function manyArguments(spider: string, count: number, distinct: boolean): string {
  const pairs = [`project=shop`, `spider=${spider}`];
  for (let index = 0; index < count; index++) {
    pairs.push(`a${distinct ? index.toString(36).padStart(4, "0") : "0000"}=xx`);
  }
  return pairs.join("&");
}

Deno.test("a 1 MB body of 116,000 spider arguments is refused by its count, and 1,000 in one line, costing what their bytes cost", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"));
      const post = (body: string) => async () => {
        const start = performance.now();
        const response = await fetch(`${service!.url}schedule.json`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
          signal: AbortSignal.timeout(GUARD_MS),
        });
        return { answer: await response.json(), ms: performance.now() - start };
      };
      // 116,000 parameters are counted before they are parsed (form_fields.ts): past 1,024, the request is refused.
      const huge = manyArguments("nosuch", 116_000, true);
      assert.ok(huge.length > 1_000_000 && huge.length < 1_048_576, `${huge.length} bytes`);
      const counted = (await post(huge)()).answer;
      assert.deepEqual([counted.status, counted.message], ["error", "the request has more than 1024 parameters"]);
      // The same bytes twice, for a spider that does not exist: 1,000 names, or one name 1,000 times (one argument,
      // the rest ignored as repeats). Only the first has 1,000 arguments to refuse; each of its names was once checked
      // first (a Spider each: 116,000 of them took 9.7 s), before the spider was found missing.
      const distinct = manyArguments("nosuch", 1_000, true);
      const repeated = manyArguments("nosuch", 1_000, false);
      assert.equal(distinct.length, repeated.length);
      const refused = (await post(distinct)()).answer;
      assert.deepEqual([refused.status, refused.message], ["error", tooManyProblem("spider argument")]);
      assert.match((await post(repeated)()).answer.message, /^spider 'nosuch' not found/);
      // Bounded at 5: a refusal counted at the 257th name costs no more than reading the repeats through.
      const many = await fastest(3, post(distinct));
      const one = await fastest(3, post(repeated));
      assert.ok(
        many / one < 5,
        `1,000 names took ${many.toFixed(1)} ms, one name 1,000 times ${one.toFixed(1)} ms`,
      );
    });
  } finally {
    await stopQuietly(service);
  }
});

Deno.test("a job with the longest value allowed is scheduled, and its page costs about what a short job's does", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      service = await startServe(join(dir, "serve"), ["--max-jobs", "1"]);
      // Port 1 on 127.0.0.1: nothing listens, the crawl ends at once; the job's page is what is timed.
      const books = { project: "shop", spider: "books", site: "http://127.0.0.1:1/" };
      const long = { ...books, jobid: "long", category: "a".repeat(MAX_VALUE_LENGTH) };
      const scheduled = JSON.parse((await timed(`${service.url}schedule.json`, long)).text);
      assert.equal(scheduled.status, "ok", JSON.stringify(scheduled).slice(0, 300));
      const tooLong = JSON.parse(
        (await timed(`${service.url}schedule.json`, {
          ...long,
          jobid: "over",
          category: "a".repeat(MAX_VALUE_LENGTH + 1),
        }))
          .text,
      );
      assert.equal(tooLong.status, "error", "one character more is refused");
      await timed(`${service.url}schedule.json`, { ...books, jobid: "short", category: "fiction" });
      await service.waitForJob("long", "finished");
      await service.waitForJob("short", "finished");

      const page = (id: string) => async () => {
        const answer = await timed(`${service!.url}job/shop/${id}`);
        assert.equal(answer.status, 200);
        return answer;
      };
      // Each view masks the job's settings and arguments and shows its log's end. A short job's page takes a few ms;
      // the 64 KiB argument adds 64 KiB to escape and send, which on the quadratic code took 18 s a view. Bounded at
      // 20 times, far above what the extra bytes cost on a busy machine and far below what that took.
      assert.match((await page("long")()).text, /a{1000}/, "the value is on its page");
      const longMs = await fastest(5, page("long"));
      const shortMs = await fastest(5, page("short"));
      assert.ok(
        longMs / shortMs < 20,
        `the long job's page took ${longMs.toFixed(1)} ms, the short one's ${shortMs.toFixed(1)}`,
      );
      const status = JSON.parse((await timed(`${service.url}daemonstatus.json`)).text);
      assert.equal(status.finished, 2);
    });
  } finally {
    await stopQuietly(service);
  }
});

Deno.test("a waiting job past the limits, left in jobs.db, fails at the next start in one line instead of hanging it", async () => {
  let service: ServeProcess | undefined;
  try {
    await withTempDir(async (dir) => {
      const serveDir = join(dir, "serve");
      // As a service from before the limits could have stored it: a 1 MB argument.
      service = await startServe(serveDir);
      await service.stop();
      storeWaitingJob(serveDir, "old", [`category=${"a".repeat(1_000_000)}`]);
      service = await startServe(serveDir);
      const job = await service.waitForJob("old", "finished");
      assert.equal(job.outcome, "failed");
      const log = await poll("the job's log", async () => {
        const { status, body } = await service!.text(job.log_url);
        return status === 200 ? body : undefined;
      }, GUARD_MS);
      assert.match(
        log,
        new RegExp(
          `could not start: spider argument category is 1000000 characters long; a value can have at most ${MAX_VALUE_LENGTH}\n$`,
        ),
      );
      assert.equal(log.split("\n").length, 2, "one line");
      const status = JSON.parse((await timed(`${service.url}daemonstatus.json`)).text);
      assert.deepEqual([status.pending, status.running, status.finished], [0, 0, 1]);
    });
  } finally {
    await stopQuietly(service);
  }
});
