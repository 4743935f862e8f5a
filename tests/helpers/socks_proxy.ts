/**
 * Real SOCKS proxies on 127.0.0.1 for tests of SOCKS proxy settings: Debian's microsocks (SOCKS5, with an optional
 * user name and password) and a small SOCKS4a server, each on a free port, killed by the test. microsocks
 * takes its password on its command line only: a throwaway test password, never a user's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { acceptsConnections, freePort } from "./free_port.ts";
import { sendSignal, type TestSignal } from "./signal.ts";
import { waitUntil } from "./wait.ts";

export interface SocksProxy {
  /** `127.0.0.1:PORT`, to put after a scheme and an optional login. */
  address: string;
  pid: number;
  kill(signal?: TestSignal): Promise<void>;
}

async function started(child: ChildProcess, port: number, name: string): Promise<SocksProxy> {
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    })
  );
  await waitUntil(`${name} to listen on ${port}`, async () => {
    if (exited) throw new Error(`${name} exited at start`);
    return await acceptsConnections(port);
  }, 15_000);
  return {
    address: `127.0.0.1:${port}`,
    pid: child.pid!,
    kill: async (signal = "SIGKILL") => {
      if (!exited) {
        await sendSignal(child.pid!, signal).catch(() => {});
        await gone;
      }
    },
  };
}

/** microsocks on a free port; with a login it refuses any client without it. */
export async function startMicrosocks(login?: { user: string; password: string }): Promise<SocksProxy> {
  const port = await freePort();
  const args = ["-i", "127.0.0.1", "-p", String(port)];
  if (login) args.push("-u", login.user, "-P", login.password);
  const child = spawn("microsocks", args, { stdio: "ignore" });
  return await started(child, port, "microsocks");
}

/**
 * A SOCKS4a server of the test's own on a free port (Debian's danted refused every SOCKS4 request in the
 * configurations tried; microsocks speaks SOCKS5 only): it reads the request, resolves a 4a host name itself,
 * connects, answers 90 and relays bytes both ways. `targets` logs what each client asked for, `requests` the plain
 * HTTP request lines it relayed.
 */
export async function startSocks4a(): Promise<SocksProxy & { targets: string[]; requests: string[] }> {
  const targets: string[] = [];
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.once("close", () => sockets.delete(client));
    let head = new Uint8Array();
    const onData = (chunk: Uint8Array) => {
      head = Uint8Array.of(...head, ...chunk);
      const userEnd = head.indexOf(0, 8);
      if (head.length < 9 || userEnd < 0) return;
      const ip = [...head.subarray(4, 8)];
      const named = ip[0] === 0 && ip[1] === 0 && ip[2] === 0 && ip[3] !== 0;
      const nameEnd = named ? head.indexOf(0, userEnd + 1) : userEnd;
      if (nameEnd < 0) return;
      client.off("data", onData);
      const host = named ? new TextDecoder().decode(head.subarray(userEnd + 1, nameEnd)) : ip.join(".");
      const port = (head[2] << 8) | head[3];
      targets.push(`${host}:${port}`);
      const upstream = connect({ host, port, family: 4 });
      sockets.add(upstream);
      upstream.once("close", () => sockets.delete(upstream));
      upstream.once("connect", () => {
        client.write(Uint8Array.of(0, 90, 0, 0, 0, 0, 0, 0));
        client.pipe(upstream).pipe(client);
        // Plain HTTP's request lines, as they pass: which requests went through the proxy.
        client.on("data", (bytes: Uint8Array) => {
          const line = /^[A-Z]+ \S+ HTTP\/1\.1/.exec(new TextDecoder().decode(bytes.subarray(0, 2048)));
          if (line) requests.push(line[0]);
        });
      });
      upstream.once("error", () => client.end(Uint8Array.of(0, 91, 0, 0, 0, 0, 0, 0)));
      client.once("error", () => upstream.destroy());
    };
    client.on("data", onData);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  return {
    address: `127.0.0.1:${port}`,
    pid: 0,
    targets,
    requests,
    kill: async () => {
      if (closed) return;
      closed = true;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
