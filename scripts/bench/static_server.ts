/**
 * A directory of generated pages served on 127.0.0.1 for the crawl benchmarks: by nginx (Debian's nginx-light: one
 * worker, keep-alive, sendfile, no access log) when it is installed, since a server that is slower than the
 * crawler would measure itself; otherwise by a small Deno server in another process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "../../tests/helpers/free_port.ts";

export interface StaticServer {
  /** The site's root URL, with a trailing slash. */
  url: string;
  port: number;
  /** What serves it, for the benchmark's header line. */
  kind: string;
  /** The server's process (nginx's master, whose worker is its child). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Serves `root`; `workDir` holds nginx's configuration, pid file and temporary folders. */
export async function serveDirectory(root: string, workDir: string): Promise<StaticServer> {
  // nginx's worker runs as another user (www-data): it must be able to read the site.
  await chmod(workDir, 0o755);
  return existsSync("/usr/sbin/nginx") ? await startNginx(root, workDir) : await startDenoServer(root);
}

async function startNginx(root: string, dir: string): Promise<StaticServer> {
  const port = await freePort();
  const conf = join(dir, "nginx.conf");
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "nginx-error.log")} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  types { text/html html; }
  default_type text/html;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server { listen 127.0.0.1:${port}; root ${root}; index index.html; }
}
`,
  );
  const child = spawn("nginx", ["-c", conf, "-p", dir], { stdio: "ignore" });
  return await serving(child, port, "nginx (1 worker)");
}

async function startDenoServer(root: string): Promise<StaticServer> {
  const port = await freePort();
  const code = `Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() {} }, async (request) => {
  const path = decodeURIComponent(new URL(request.url).pathname);
  try {
    return new Response(await Deno.readFile(${
    JSON.stringify(root)
  } + (path.endsWith("/") ? path + "index.html" : path)),
      { headers: { "content-type": "text/html" } });
  } catch { return new Response("not found", { status: 404 }); }
});`;
  const child = spawn(Deno.execPath(), ["eval", code], { stdio: "ignore" });
  return await serving(child, port, "a Deno static server (install nginx-light for a faster one)");
}

/** The server `child` runs on `port`, once it answers; stopping it ends the child. */
async function serving(child: ChildProcess, port: number, kind: string): Promise<StaticServer> {
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      const answer = await fetch(url);
      await answer.body?.cancel();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    port,
    kind,
    pid: child.pid,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
