/**
 * Requests that could hold up `netweir serve`, each caused and bounded: a body cut into more fields than any endpoint
 * takes is refused before it is parsed (both encodings, and the dashboard's forms), a huge upload to addversion.json is
 * refused from its Content-Length, and slow uploads to addversion.json hold their own address's connections and
 * nothing else, until the request deadline closes them. The real app (createApp) behind the real HTTP front on
 * 127.0.0.1, the deadline on a clock moved by hand. About 1 s.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { createApp } from "../../src/serve/app.ts";
import { MAX_FORM_FIELDS, multipartBoundary, multipartFields, urlencodedFields } from "../../src/serve/form_fields.ts";
import { startHttpServer } from "../../src/serve/http_server.ts";
import { servePaths } from "../../src/serve/paths.ts";
import { createProjectRegistry } from "../../src/serve/projects.ts";
import { ManualClock } from "../helpers/manual_clock.ts";
import { waitUntil } from "../helpers/wait.ts";
import { FakeJobs } from "./_fake_jobs.ts";
import { withTempDir } from "./_setup.ts";

function app(dir: string, jobs = new FakeJobs()) {
  return createApp({
    jobs,
    registry: createProjectRegistry([], dir),
    paths: servePaths(dir),
    nodeName: "box",
    loopback: true,
  });
}

const fields = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `a${from + i}=1`).join("&");

function multipart(boundary: string, parts: number): string {
  let body = "";
  for (let i = 0; i < parts; i++) body += `--${boundary}\r\nContent-Disposition: form-data; name="a${i}"\r\n\r\n1\r\n`;
  return `${body}--${boundary}--\r\n`;
}

async function answer(response: Response): Promise<Record<string, unknown>> {
  assert.equal(response.status, 200);
  return await response.json();
}

const TOO_MANY = `the request has more than ${MAX_FORM_FIELDS} parameters`;

Deno.test("fields are counted without parsing: & in a query or urlencoded body, boundaries in a multipart one", () => {
  assert.equal(urlencodedFields(""), 0);
  assert.equal(urlencodedFields("a=1"), 1);
  assert.equal(urlencodedFields(fields(7)), 7);
  assert.equal(urlencodedFields(fields(5000)), MAX_FORM_FIELDS + 1, "counting stops past the bound");
  assert.equal(multipartBoundary('multipart/form-data; boundary="a b"'), "a b");
  assert.equal(multipartBoundary("multipart/form-data; charset=utf-8; boundary=xyz"), "xyz");
  assert.equal(multipartBoundary("multipart/form-data"), undefined);
  const bytes = (text: string) => new TextEncoder().encode(text);
  assert.equal(multipartFields(bytes(multipart("xyz", 3)), "xyz"), 3);
  assert.equal(multipartFields(bytes(multipart("xyz", 0)), "xyz"), 0);
  assert.equal(multipartFields(bytes(multipart("xyz", 5000)), "xyz"), MAX_FORM_FIELDS + 1);
});

Deno.test("a request of more than 1,024 parameters is refused before its form is parsed, in either encoding; 1,024 pass", async () => {
  await withTempDir(async (dir) => {
    const served = app(dir);
    const post = (path: string, body: string, type: string, query = "") =>
      served.request(`http://127.0.0.1/${path}${query}`, {
        method: "POST",
        body,
        headers: { "content-type": type, host: "127.0.0.1" },
      });
    const form = "application/x-www-form-urlencoded";
    // Query and body together: 24 in the query and 1,000 in the body are 1,024, one more is too many.
    const at = await answer(await post("schedule.json", fields(1000, 24), form, `?${fields(24)}`));
    assert.notEqual(at.message, TOO_MANY);
    const past = await answer(await post("schedule.json", fields(1001, 24), form, `?${fields(24)}`));
    assert.deepEqual([past.status, past.message], ["error", TOO_MANY]);
    const upload = await answer(await post("addversion.json", fields(100_000), form));
    assert.deepEqual([upload.status, upload.message], ["error", TOO_MANY]);

    const type = "multipart/form-data; boundary=xyz";
    const fits = await answer(await post("schedule.json", multipart("xyz", MAX_FORM_FIELDS), type));
    assert.notEqual(fits.message, TOO_MANY);
    for (const path of ["schedule.json", "addversion.json"]) {
      const many = await answer(await post(path, multipart("xyz", MAX_FORM_FIELDS + 1), type));
      assert.deepEqual([many.status, many.message], ["error", TOO_MANY], path);
    }
  });
});

/** A raw connection from `localAddress` that records what it receives and when it closes. */
function client(port: number, localAddress: string) {
  return new Promise<{ socket: Socket; received: () => string; closed: Promise<string>; isClosed: () => boolean }>(
    (resolve, reject) => {
      const socket = connect({ port, host: "127.0.0.1", localAddress });
      let text = "";
      let isClosed = false;
      const closed = new Promise<string>((done) =>
        socket.on("close", () => {
          isClosed = true;
          done(text);
        })
      );
      socket.on("data", (chunk) => text += chunk.toString("latin1"));
      socket.on("error", () => {});
      socket.once("connect", () => resolve({ socket, received: () => text, closed, isClosed: () => isClosed }));
      socket.once("error", reject);
    },
  );
}

Deno.test("slow uploads to addversion.json hold their address's 8 connections for 15 s and nothing else; a huge one is refused at once", async () => {
  await withTempDir(async (dir) => {
    const clock = new ManualClock();
    const jobs = new FakeJobs();
    const served = app(dir, jobs);
    const server = await startHttpServer((request, info) => served.fetch(request, info), {
      hostname: "127.0.0.1",
      port: 0,
      log: () => {},
      timers: clock,
    });
    const head = "POST /addversion.json HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n\r\n";
    try {
      // Eight uploads from one address (127.0.0.2), each sending its head and then a byte a second of its body.
      const slow = await Promise.all(Array.from({ length: 8 }, () => client(server.port, "127.0.0.2")));
      await waitUntil("eight connections", () => server.connections() === 8);
      for (const upload of slow) upload.socket.write(head);
      for (let second = 0; second < 10; second++) {
        for (const upload of slow) upload.socket.write("a");
        await clock.advance(1000);
      }
      // A ninth from that address is closed unanswered; another address is served as if nothing were going on.
      const ninth = await client(server.port, "127.0.0.2");
      assert.equal(await ninth.closed, "");
      const other = await client(server.port, "127.0.0.1");
      other.socket.write("GET /daemonstatus.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      assert.match(await other.closed, /^HTTP\/1\.1 200 OK\r\n[\s\S]*"status":"ok"/);
      // A huge upload is refused from its Content-Length, before a byte of its body is read.
      const huge = await client(server.port, "127.0.0.1");
      huge.socket.write(head.replace("1000000", "100000000"));
      assert.match(await huge.closed, /^HTTP\/1\.1 413 /);
      assert.ok(slow.every((upload) => !upload.isClosed()), "the slow uploads are still open at 10 s");

      await clock.advance(5_000);
      await waitUntil("the slow uploads closed at 15 s", () => slow.every((upload) => upload.isClosed()));
      for (const upload of slow) assert.equal(upload.received(), "", "closed unanswered");
      const after = await client(server.port, "127.0.0.2");
      after.socket.write("GET /daemonstatus.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      assert.match(await after.closed, /^HTTP\/1\.1 200 OK\r\n/, "the address is served again");
    } finally {
      await server.close();
    }
  });
});
