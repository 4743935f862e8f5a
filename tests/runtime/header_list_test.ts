/**
 * src/runtime/header_list.ts against the runtime's own `Headers` (Deno's here, undici's in Node 22): generated runs of
 * appends, sets, deletes and reads with names in any case, invalid names and values, padded values and Set-Cookie
 * lines, each call's answer and the whole listing compared (tests/helpers/headers_differential.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { HeaderList } from "../../src/runtime/header_list.ts";
import { headerDifferences } from "../helpers/headers_differential.ts";
import { NODE22, runCommand } from "../helpers/node_package.ts";

Deno.test("answers as Deno's Headers does over 2,000 generated runs", () => {
  const { compared, differ } = headerDifferences(1, 2_000, 30, { withEmptyValues: false });
  assert.ok(compared > 30_000, `only ${compared} answers compared`);
  assert.deepEqual(differ, []);
});

Deno.test("answers as Node 22's Headers (undici's) does over 2,000 generated runs", async () => {
  const module = fileURLToPath(new URL("../helpers/headers_differential.ts", import.meta.url));
  const script = `
    import { headerDifferences } from ${JSON.stringify(module)};
    console.log(JSON.stringify(headerDifferences(2, 2000, 30)));
  `;
  const ran = await runCommand(NODE22, ["--input-type=module", "--eval", script]);
  assert.equal(ran.code, 0, ran.stderr);
  const { compared, differ } = JSON.parse(ran.stdout.trim());
  assert.ok(compared > 30_000, `only ${compared} answers compared`);
  assert.deepEqual(differ, []);
});

Deno.test("is taken wherever HeadersInit is, and shown as Headers", () => {
  const list = new HeaderList([["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"], ["Content-Type", "text/html"]]);
  assert.deepEqual([...new Headers(list)], [["content-type", "text/html"], ["set-cookie", "a=1"], [
    "set-cookie",
    "b=2",
  ]]);
  assert.equal(new Response("x", { headers: list }).headers.get("content-type"), "text/html");
  assert.equal(Object.prototype.toString.call(list), "[object Headers]");
  assert.throws(() => new HeaderList([["x-a"]] as unknown as HeadersInit), TypeError);
  assert.throws(() => new HeaderList([["x-a", "b", "c"]] as unknown as HeadersInit), TypeError);
  assert.equal(Deno.inspect(list), 'Headers { "content-type": "text/html", "set-cookie": "b=2" }');
});

Deno.test("lists an empty value joined to the next as the standard says, where Deno's own class drops the comma", () => {
  const list = new HeaderList([["X-A", ""], ["x-a", "b"], ["x-c", "d"], ["x-c", " "]]);
  assert.deepEqual([...list], [["x-a", ", b"], ["x-c", "d, "]]);
  assert.equal(list.get("x-a"), ", b");
  assert.deepEqual([...new HeaderList(list)], [["x-a", ", b"], ["x-c", "d,"]]);
});
