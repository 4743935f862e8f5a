/**
 * Benchmark helpers shared by the scripts that serve static files with nginx (Debian's nginx-light) and measure a
 * command with GNU time.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort } from "../../tests/helpers/free_port.ts";

export interface Served {
  url: string;
  stop(): Promise<void>;
}

/** Serves `root` with nginx on 127.0.0.1 (one worker, keep-alive, no access log), its files kept in `dir`. */
export async function serveWithNginx(root: string, dir: string): Promise<Served> {
  const port = await freePort();
  const conf = join(dir, `nginx-${port}.conf`);
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${join(dir, `nginx-${port}.pid`)};
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
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      await (await fetch(url)).body?.cancel();
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

export interface Timed {
  wall: number;
  cpu: number;
  peakMb: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command under GNU time: wall seconds, CPU seconds (user + system), peak RSS, and what it printed. */
export async function timed(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Timed> {
  const marker = "@@time";
  const child = spawn("/usr/bin/time", ["-f", `${marker} %e %U %S %M`, command, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => stdout += chunk);
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => stderr += chunk);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const line = stderr.split("\n").find((text) => text.startsWith(marker));
  if (!line) throw new Error(`no timing from ${command}: ${stderr.slice(-2000)}`);
  const [wall, user, system, kb] = line.slice(marker.length).trim().split(" ").map(Number);
  return { wall, cpu: user + system, peakMb: kb / 1024, code, stdout, stderr };
}
