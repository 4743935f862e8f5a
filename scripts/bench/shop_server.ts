/** A generated book shop of any size on 127.0.0.1, for benchmarks (the same pages as examples/site). */
import { shopPage } from "../../examples/shop.ts";
import { type Listener, runtime } from "../../src/runtime/mod.ts";

export async function serveShop(books: number): Promise<Listener & { url: string }> {
  const listener = await runtime.listen((request) => {
    const answer = shopPage(new URL(request.url).pathname, books);
    return new Response(answer.body, { status: answer.status, headers: { "content-type": answer.contentType } });
  }, { hostname: "127.0.0.1", port: 0 });
  return Object.assign(listener, { url: `http://127.0.0.1:${listener.port}/` });
}
