import assert from "node:assert/strict";
import { idleConnectionBound, MIN_IDLE } from "../../src/fetch/idle_connections.ts";
import { openFileLimit } from "../../src/runtime/open_file_limit.ts";

Deno.test("idle connections: four for each request in flight, never fewer than the old bound", () => {
  assert.equal(idleConnectionBound(16, undefined), MIN_IDLE);
  assert.equal(idleConnectionBound(1000, undefined), 4000);
  assert.equal(idleConnectionBound(1000, 1_048_576), 4000);
});

Deno.test("idle connections: within the open files left when every request in flight has its own", () => {
  // 20,000 files: 1000 in flight, 256 for feeds and logs, the rest may idle.
  assert.equal(idleConnectionBound(10_000, 20_000), 20_000 - 10_000 - 256);
  // A process allowed 1024 files at concurrency 16 keeps 512 (the default bound fits).
  assert.equal(idleConnectionBound(16, 1024), MIN_IDLE);
  // Too few files for the concurrency asked: still a few idle ones, rather than a connection a request.
  assert.equal(idleConnectionBound(1000, 1024), 64);
});

Deno.test("the open-file limit is this process's soft limit (Linux), a positive number", () => {
  const limit = openFileLimit();
  const line = /^Max open files\s+(\S+)/m.exec(Deno.readTextFileSync("/proc/self/limits"))![1];
  assert.equal(limit, line === "unlimited" ? Infinity : Number(line));
  assert.ok(limit! > 0);
});
