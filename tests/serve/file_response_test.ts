import assert from "node:assert/strict";
import { appendFile, mkdtemp, readdir, readlink, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileResponse, parseRange } from "../../src/serve/file_response.ts";
import { startHttpServer } from "../../src/serve/http_server.ts";

const TEN = "0123456789";

/** A temporary directory with `job.log` holding `content`, removed afterwards. */
async function withFile(content: string, body: (path: string, dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "netweir-file-response-"));
  try {
    const path = join(dir, "job.log");
    await writeFile(path, content);
    await body(path, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * How many of this process's descriptors have `path` open, from /proc/self/fd (Linux, where the tests run); Deno's
 * leak check does not see node:fs FileHandles, so this is how a test knows a file was closed.
 */
async function openCount(path: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) {
    if (await readlink(`/proc/self/fd/${fd}`).catch(() => "") === path) count++;
  }
  return count;
}

/** Waits a little for closes in flight, then says how many descriptors still have `path` open. */
async function settledOpenCount(path: string): Promise<number> {
  for (let i = 0; i < 100 && await openCount(path) > 0; i++) await new Promise((r) => setTimeout(r, 10));
  return await openCount(path);
}

function get(range?: string, method = "GET"): Request {
  return new Request("http://127.0.0.1/logs/shop/books/job1.log", {
    method,
    headers: range === undefined ? {} : { range },
  });
}

Deno.test("a whole file is served with its length, type and Accept-Ranges", async () => {
  await withFile(TEN, async (path) => {
    const response = await fileResponse(path, get(), "text/plain; charset=utf-8");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(response.headers.get("content-length"), "10");
    assert.equal(response.headers.get("accept-ranges"), "bytes");
    assert.equal(response.headers.get("content-range"), null);
    assert.equal(await response.text(), TEN);
  });
});

Deno.test("each Range form gives 206 with the bytes asked for and a Content-Range", async () => {
  await withFile(TEN, async (path) => {
    const cases: [string, string, string][] = [
      ["bytes=2-5", "2345", "bytes 2-5/10"],
      ["bytes=7-", "789", "bytes 7-9/10"],
      ["bytes=-3", "789", "bytes 7-9/10"],
      ["bytes=-1000", TEN, "bytes 0-9/10"],
      ["bytes=8-1000", "89", "bytes 8-9/10"],
      ["bytes=0-0", "0", "bytes 0-0/10"],
    ];
    for (const [range, body, contentRange] of cases) {
      const response = await fileResponse(path, get(range), "text/plain");
      assert.equal(response.status, 206, range);
      assert.equal(response.headers.get("content-range"), contentRange, range);
      assert.equal(response.headers.get("content-length"), String(body.length), range);
      assert.equal(await response.text(), body, range);
    }
  });
});

Deno.test("a range past the end gives 416 with the file's size", async () => {
  await withFile(TEN, async (path) => {
    for (const range of ["bytes=10-", "bytes=50-60", "bytes=-0"]) {
      const response = await fileResponse(path, get(range), "text/plain");
      assert.equal(response.status, 416, range);
      assert.equal(response.headers.get("content-range"), "bytes */10", range);
      assert.equal((await response.json()).status, "error");
    }
  });
});

Deno.test("a Range that is malformed, names several ranges or comes with If-Range gets the whole file", async () => {
  await withFile(TEN, async (path) => {
    for (const range of ["bytes=5-2", "bytes=0-1,4-5", "items=0-1", "bytes=abc", "bytes=-"]) {
      const response = await fileResponse(path, get(range), "text/plain");
      assert.equal(response.status, 200, range);
      assert.equal(await response.text(), TEN, range);
    }
    const request = new Request("http://127.0.0.1/x", { headers: { range: "bytes=0-1", "if-range": '"v1"' } });
    const conditional = await fileResponse(path, request, "text/plain");
    assert.equal(conditional.status, 200);
    assert.equal(await conditional.text(), TEN);
  });
});

Deno.test("an empty file is served whole, even to a tail request", async () => {
  await withFile("", async (path) => {
    const whole = await fileResponse(path, get(), "text/plain");
    assert.equal(whole.status, 200);
    assert.equal(await whole.text(), "");
    const tail = await fileResponse(path, get("bytes=-100"), "text/plain");
    assert.equal(tail.status, 200);
    assert.equal(await tail.text(), "");
    assert.equal((await fileResponse(path, get("bytes=0-"), "text/plain")).status, 416);
  });
});

Deno.test("a growing file is served as it was when asked for, not as it grew since", async () => {
  await withFile("line 1\n", async (path) => {
    const response = await fileResponse(path, get(), "text/plain");
    const tail = await fileResponse(path, get("bytes=-3"), "text/plain");
    await appendFile(path, "line 2\n".repeat(20_000));
    assert.equal(response.headers.get("content-length"), "7");
    assert.equal(await response.text(), "line 1\n");
    assert.equal(await tail.text(), " 1\n", "the tail is of the file as it was");
    const later = await fileResponse(path, get("bytes=7-13"), "text/plain");
    assert.equal(later.headers.get("content-range"), "bytes 7-13/140007");
    assert.equal(await later.text(), "line 2\n");
  });
});

Deno.test("a large file arrives whole, read in several chunks", async () => {
  const content = TEN.repeat(30_000); // 300 KB, several reads
  await withFile(content, async (path) => {
    const response = await fileResponse(path, get(), "application/jsonl");
    assert.equal(await response.text(), content);
  });
});

Deno.test("a missing file, or a directory, gives 404 with a JSON error", async () => {
  await withFile(TEN, async (_path, dir) => {
    for (const path of [join(dir, "nope.log"), join(dir, "job.log", "under-a-file"), dir]) {
      const response = await fileResponse(path, get(), "text/plain");
      assert.equal(response.status, 404, path);
      assert.equal(response.headers.get("content-type"), "application/json");
      assert.deepEqual(await response.json(), { status: "error", message: "no such file" });
    }
  });
});

Deno.test("a HEAD request gets the headers of the range and no body", async () => {
  await withFile(TEN, async (path) => {
    const response = await fileResponse(path, get("bytes=-4", "HEAD"), "text/plain");
    assert.equal(response.status, 206);
    assert.equal(response.headers.get("content-length"), "4");
    assert.equal(response.body, null);
  });
});

Deno.test("the file is closed when its body is read, cancelled part way, or its request aborted", async () => {
  await withFile(TEN.repeat(30_000), async (path) => {
    const read = await fileResponse(path, get(), "text/plain");
    assert.ok(await openCount(path) >= 1, "open while the body is unread");
    await read.text();
    assert.equal(await settledOpenCount(path), 0, "closed once read");

    const cancelled = await fileResponse(path, get(), "text/plain");
    const reader = cancelled.body!.getReader();
    assert.equal((await reader.read()).value?.byteLength, 64 * 1024);
    await reader.cancel();
    assert.equal(await settledOpenCount(path), 0, "closed on cancel");

    const client = new AbortController();
    const request = new Request("http://127.0.0.1/x", { signal: client.signal });
    const aborted = await fileResponse(path, request, "text/plain");
    const abortedReader = aborted.body!.getReader();
    await abortedReader.read();
    client.abort(new Error("gone"));
    await assert.rejects(abortedReader.read(), /gone/);
    assert.equal(await settledOpenCount(path), 0, "closed on abort");

    for (
      const response of [
        await fileResponse(path, get("bytes=50-", "HEAD"), "x"),
        await fileResponse(path, get("bytes=999999-"), "x"),
      ]
    ) {
      await response.body?.cancel();
    }
    assert.equal(await openCount(path), 0, "HEAD and 416 answers keep nothing open");
  });
});

Deno.test("served through the HTTP server, a tail request gets the last bytes and a client leaving mid-file frees it", async () => {
  // 16 MB, and a client that stops reading: more than the kernel's socket buffers take, so the file stays open.
  await withFile(TEN.repeat(1_600_000), async (path) => {
    const server = await startHttpServer((request) => fileResponse(path, request, "text/plain"), {
      hostname: "127.0.0.1",
      port: 0,
      log: () => {},
    });
    try {
      const tail = await fetch(`http://127.0.0.1:${server.port}/logs/a/b/c.log`, { headers: { range: "bytes=-5" } });
      assert.equal(tail.status, 206);
      assert.equal(tail.headers.get("content-range"), "bytes 15999995-15999999/16000000");
      assert.equal(await tail.text(), "56789");
      assert.equal(await settledOpenCount(path), 0, "closed once the tail was sent");

      const socket = connect(server.port, "127.0.0.1");
      const closed = new Promise((resolve) => socket.on("close", resolve));
      socket.on("error", () => {});
      socket.write("GET /logs/a/b/c.log HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await new Promise((resolve) => socket.once("data", resolve));
      socket.pause();
      // At least one: Deno's own reads may hold a duplicate descriptor for a moment.
      assert.ok(await openCount(path) >= 1, "the file is being served");
      socket.destroy(); // gone after the first bytes: the server must close the file
      await closed;
      assert.equal(await settledOpenCount(path), 0, "the file was closed");
      for (let i = 0; i < 200 && server.connections() > 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(server.connections(), 0);
    } finally {
      await server.close();
    }
  });
});

Deno.test("parseRange reads the three forms and refuses what it cannot serve", () => {
  assert.deepEqual(parseRange("bytes=0-4", 10), { first: 0, last: 4 });
  assert.deepEqual(parseRange("bytes=3-", 10), { first: 3, last: 9 });
  assert.deepEqual(parseRange("bytes=-2", 10), { first: 8, last: 9 });
  assert.deepEqual(parseRange("BYTES=1-1", 10), { first: 1, last: 1 });
  assert.equal(parseRange(null, 10), undefined);
  assert.equal(parseRange("bytes=10-", 10), "unsatisfiable");
  assert.equal(parseRange("bytes=99999999999999999999-", 10), "unsatisfiable");
});
