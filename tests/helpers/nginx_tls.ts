/**
 * Debian's nginx serving a directory over TLS on a free port of 127.0.0.1, with HTTP/2 offered by ALPN or not, from
 * a configuration and prefix of its own (nothing of the system's nginx is touched). Debian 12's nginx is 1.22, which
 * turns HTTP/2 on with `listen ... http2` (1.25 moved it to `http2 on`). With `logPath`, each request's path and
 * protocol (`HTTP/2.0`, `HTTP/1.1`) and connection number are logged there, a line each.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acceptsConnections, freePort } from "./free_port.ts";

export interface NginxTlsOptions {
  root: string;
  /** Holds nginx's configuration, pid file and temporary folders. */
  workDir: string;
  cert: string;
  key: string;
  http2: boolean;
  logPath?: string;
  /** http2_max_concurrent_streams (nginx's default is 128). */
  maxStreams?: number;
  /** Requests a connection serves before nginx ends it (over HTTP/2, by GOAWAY); a million when not given. */
  maxRequests?: number;
  /** The port, when the site's pages must name it before nginx starts; a free one otherwise. */
  port?: number;
}

export interface NginxTls {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startNginxTls(options: NginxTlsOptions): Promise<NginxTls> {
  const { root, workDir, cert, key } = options;
  // nginx's worker runs as another user (www-data) when started by root: it must be able to read the site.
  await chmod(workDir, 0o755);
  const port = options.port ?? await freePort();
  const conf = join(workDir, "nginx.conf");
  const log = options.logPath
    ? `log_format proto '$request_uri $server_protocol $connection';\n  access_log ${options.logPath} proto;`
    : "access_log off;";
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(workDir, "nginx.pid")};
error_log ${join(workDir, "nginx-error.log")} warn;
events { worker_connections 1024; }
http {
  ${log}
  sendfile on;
  keepalive_requests ${options.maxRequests ?? 1000000};
  keepalive_timeout 60s;
  types { text/html html; }
  default_type text/html;
  client_body_temp_path ${workDir}/body; proxy_temp_path ${workDir}/proxy; fastcgi_temp_path ${workDir}/fastcgi;
  uwsgi_temp_path ${workDir}/uwsgi; scgi_temp_path ${workDir}/scgi;
  server {
    listen 127.0.0.1:${port} ssl${options.http2 ? " http2" : ""};
    ssl_certificate ${cert};
    ssl_certificate_key ${key};
    ${options.maxStreams ? `http2_max_concurrent_streams ${options.maxStreams};` : ""}
    root ${root};
    index index.html;
  }
}
`,
  );
  const child: ChildProcess = spawn("nginx", ["-c", conf, "-p", workDir], { stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0;; i++) {
    if (await acceptsConnections(port)) break;
    if (i > 200 || child.exitCode !== null) throw new Error(`nginx did not start on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: `https://127.0.0.1:${port}/`,
    port,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
