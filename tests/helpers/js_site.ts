/**
 * A real HTTP site on 127.0.0.1 whose pages need a browser: listing pages that build their product links with
 * JavaScript and keep half of them behind a "Load more" button, an infinite-scroll page, a form, a file upload, a
 * page whose script sets a cookie, a page that links off the site, and a button that never appears. Product pages
 * are plain HTML, so a crawl can render the listings and fetch the products over HTTP. Used by the rendering tests
 * and by scripts/bench/render.ts. Every request is logged, with what uploads it received.
 */
import { runtime } from "../../src/runtime/mod.ts";

export interface JsSiteOptions {
  /** Products in the shop (default 40). */
  products?: number;
  /** Products per listing page, half shown at once and half behind "Load more" (default 10). */
  perPage?: number;
  /** robots.txt (default: everything allowed). */
  robots?: string;
  /** The loopback address to listen on (default 127.0.0.1). */
  hostname?: string;
  /** Another site's origin, for the page that links off this one. */
  offsite?: string;
}

export interface JsSite {
  url: string;
  origin: string;
  port: number;
  products: number;
  pages: number;
  /** Path and query of every request received, in order. */
  requests: string[];
  /** How many requests a path received (query ignored). */
  hits(path: string): number;
  /** Files received by /upload: name and text. */
  uploads: Array<{ field: string; name: string; text: string }>;
  /** Headers of every request received, by path and query. */
  headers: Map<string, Headers>;
  close(): Promise<void>;
}

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(
    `<!doctype html><html><head><meta charset="utf-8"><title>JS shop</title></head><body>${body}</body></html>`,
    {
      status,
      headers: { "content-type": "text/html; charset=utf-8", ...headers },
    },
  );

/** A listing page: an empty list, filled by script from the API, half at once and half on "Load more". */
function listingPage(page: number, pages: number): string {
  return `<h1>Products, page ${page}</h1><ul id="products"></ul><button id="more" style="display:none">Load more</button>
<nav id="pager"></nav>
<script>
const list = document.getElementById("products");
const more = document.getElementById("more");
async function load(part) {
  const answer = await fetch("/api/products?page=${page}&part=" + part);
  for (const product of await answer.json()) {
    const item = document.createElement("li");
    item.innerHTML = '<a class="product" href="/product/' + product.id + '">' + product.name + '</a>';
    list.append(item);
  }
}
load(0).then(() => { more.style.display = "inline"; });
more.addEventListener("click", async () => {
  more.disabled = true;
  await load(1);
  more.remove();
  document.body.dataset.loaded = "all";
});
if (${page} < ${pages}) document.getElementById("pager").innerHTML = '<a id="next" href="/list/${page + 1}">next</a>';
</script>`;
}

/** A 1x1 PNG. */
const PIXEL = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

const SCROLL_TOTAL = 45;
const SCROLL_BATCH = 15;

function scrollPage(): string {
  return `<h1>Endless</h1><div id="feed"></div>
<script>
const feed = document.getElementById("feed");
let shown = 0;
async function more() {
  const answer = await fetch("/api/feed?from=" + shown);
  const rows = await answer.json();
  for (const row of rows) {
    const div = document.createElement("div");
    div.className = "row";
    div.style.height = "400px";
    div.textContent = row;
    feed.append(div);
  }
  shown += rows.length;
}
let busy = false;
addEventListener("scroll", async () => {
  if (busy || innerHeight + scrollY < document.documentElement.scrollHeight - 50) return;
  busy = true;
  await new Promise((resolve) => setTimeout(resolve, 100));
  await more();
  busy = false;
});
more();
</script>`;
}

function formPage(): string {
  return `<h1>Search</h1><form id="search" method="post" action="/search">
<input name="q" id="q"><select name="color" id="color"><option value="red">Red</option><option value="blue">Blue</option>
<option value="green">Green</option></select><button id="go" type="submit">Go</button></form>`;
}

function uploadPage(): string {
  return `<h1>Upload</h1><form method="post" action="/upload" enctype="multipart/form-data">
<input type="file" name="document" id="file"><button id="send" type="submit">Send</button></form>`;
}

/** Starts the site on a free port. */
export async function startJsSite(options: JsSiteOptions = {}): Promise<JsSite> {
  const products = options.products ?? 40;
  const perPage = options.perPage ?? 10;
  const pages = Math.max(1, Math.ceil(products / perPage));
  const half = Math.ceil(perPage / 2);
  const requests: string[] = [];
  const headers = new Map<string, Headers>();
  const uploads: JsSite["uploads"] = [];
  const hostname = options.hostname ?? "127.0.0.1";

  const productsOf = (page: number, part: number) => {
    const first = (page - 1) * perPage + part * half + 1;
    const last = Math.min(products, (page - 1) * perPage + (part === 0 ? half : perPage));
    const found = [];
    for (let id = first; id <= last; id++) found.push({ id, name: `Product ${id}` });
    return found;
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    requests.push(path + url.search);
    headers.set(path + url.search, new Headers(request.headers));
    if (path === "/robots.txt") {
      return new Response(options.robots ?? "User-agent: *\nDisallow:\n", {
        headers: { "content-type": "text/plain" },
      });
    }
    if (path === "/" || path === "/list/1") return html(listingPage(1, pages));
    const list = /^\/list\/(\d+)$/.exec(path);
    if (list && Number(list[1]) <= pages) return html(listingPage(Number(list[1]), pages));
    if (path === "/api/products") {
      const page = Number(url.searchParams.get("page"));
      const part = Number(url.searchParams.get("part"));
      return Response.json(productsOf(page, part));
    }
    const product = /^\/product\/(\d+)$/.exec(path);
    if (product && Number(product[1]) >= 1 && Number(product[1]) <= products) {
      const id = Number(product[1]);
      return html(`<h1 class="name">Product ${id}</h1><p class="price">${(id * 1.25).toFixed(2)}</p>`);
    }
    if (path === "/scroll") return html(scrollPage());
    if (path === "/api/feed") {
      const from = Number(url.searchParams.get("from"));
      const rows = [];
      for (let i = from; i < Math.min(SCROLL_TOTAL, from + SCROLL_BATCH); i++) rows.push(`row ${i + 1}`);
      return Response.json(rows);
    }
    if (path === "/form") return html(formPage());
    // The same form on a page whose beforeunload handler keeps it busy for half a second, as a heavy one would: the
    // form's submission begins that long after the click.
    if (path === "/form-slow-leave") {
      return html(
        formPage() +
          `<script>addEventListener("beforeunload", () => { const t = Date.now(); while (Date.now() - t < 500); });</script>`,
      );
    }
    if (path === "/search" && request.method === "POST") {
      const form = await request.formData();
      return html(`<p id="q">${form.get("q")}</p><p id="color">${form.get("color")}</p>`);
    }
    if (path === "/upload" && request.method === "GET") return html(uploadPage());
    if (path === "/upload" && request.method === "POST") {
      const form = await request.formData();
      const received: string[] = [];
      for (const [field, value] of form) {
        if (typeof value === "string") continue;
        uploads.push({ field, name: value.name, text: await value.text() });
        received.push(value.name);
      }
      return html(`<p id="received">${received.join(",")}</p>`);
    }
    if (path === "/cookie-script") {
      return html(`<p id="done"></p><script>document.cookie = "from_script=yes; path=/";
document.getElementById("done").textContent = "set";</script>`);
    }
    if (path === "/cookies") {
      const cookies: Record<string, string> = {};
      for (const part of (request.headers.get("cookie") ?? "").split(";")) {
        const at = part.indexOf("=");
        if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
      }
      return Response.json({ cookies });
    }
    if (path === "/cookie-show") {
      // Rendered: shows the cookies the browser sends, as a page script sees them too.
      return html(`<p id="server">${request.headers.get("cookie") ?? ""}</p>
<p id="script"></p><script>document.getElementById("script").textContent = document.cookie;</script>`);
    }
    if (path === "/login") {
      return new Response("logged in\n", {
        headers: { "content-type": "text/plain", "set-cookie": "session=http-login; Path=/" },
      });
    }
    if (path === "/offsite") {
      const target = options.offsite ?? "http://127.0.0.2:9/";
      return html(`<a id="away" href="${target}">away</a><a id="stay" href="/product/1">stay</a>`);
    }
    if (path === "/images") {
      return html(`<img id="pic" src="/pixel.png"><p id="size"></p><script>
addEventListener("load", () => { document.getElementById("size").textContent = document.getElementById("pic").naturalWidth; });
</script>`);
    }
    if (path === "/pixel.png") return new Response(PIXEL, { headers: { "content-type": "image/png" } });
    if (path === "/gone") return html(`<p id="why">gone for good</p>`, 410, { "x-shop": "js" });
    if (path === "/never") return html(`<p>the button never comes</p>`);
    if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "/product/2" } });
    if (path === "/data") {
      return html(`<ul><li data-sku="a">A</li><li data-sku="b">B</li></ul>
<script>window.shopData = { skus: [...document.querySelectorAll("li")].map((li) => li.dataset.sku) };</script>`);
    }
    return html("<p>not found</p>", 404);
  };

  const listener = await runtime.listen(handle, { hostname, port: 0 });
  const origin = `http://${hostname}:${listener.port}`;
  return {
    url: `${origin}/`,
    origin,
    port: listener.port,
    products,
    pages,
    requests,
    headers,
    uploads,
    hits: (path) => requests.filter((seen) => seen.split("?")[0] === path).length,
    close: () => listener.close(),
  };
}
