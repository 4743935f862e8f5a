/** Reading an items stream the way a consumer does, for the tests of the Redis stream output. */
import assert from "node:assert/strict";
import type { RedisServer } from "../helpers/redis.ts";

/** The items of a stream, in its order, as the `item` field of each entry holds them. */
export async function streamItems(redis: RedisServer, key: string): Promise<Array<Record<string, unknown>>> {
  const entries = await redis.command("XRANGE", key, "-", "+") as Array<[string, string[]]>;
  return entries.map(([, fields]) => {
    assert.equal(fields[0], "item");
    return JSON.parse(fields[1]);
  });
}
