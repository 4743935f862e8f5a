/**
 * HTTPS through a SOCKS5 proxy with a login (microsocks on 127.0.0.1), on Deno and on Node 22: TLS runs end to end
 * over the tunnel the proxy opened, to a server whose certificate a private CA signed (trusted as each runtime is
 * told to: `--cert`, NODE_EXTRA_CA_CERTS), and two requests share one kept connection. Each side runs in a process
 * of its own, as in tests/runtime/h1_tls_test.ts.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCertificates } from "../helpers/certificates.ts";
import { runCommand } from "../helpers/command.ts";
import { NODE22 } from "../helpers/node_package.ts";
import { startMicrosocks } from "../helpers/socks_proxy.ts";
import { serveTls } from "../helpers/tls_server.ts";

const SRC = new URL("../../src/", import.meta.url);
const LOGIN = { user: "tls-user", password: "tls pass" };

/** A program that GETs the URL twice through the SOCKS proxy and prints one JSON line: the answers or the failure. */
function program(dialModule: string, dialName: string): string {
  return `
import { wireHttpClient } from ${JSON.stringify(new URL("runtime/h1/client.ts", SRC).href)};
import { ${dialName} } from ${JSON.stringify(new URL(dialModule, SRC).href)};
import process from "node:process";
const [proxy, url] = process.argv.slice(-2);
const client = wireHttpClient({ dial: ${dialName}(new URL(proxy)) });
try {
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const response = await client.fetch(new URL(url), { method: "GET", headers: new Headers() });
    answers.push([response.status, new TextDecoder().decode(await response.bytes(1e6))]);
  }
  console.log(JSON.stringify({ answers }));
} catch (error) {
  console.log(JSON.stringify({ message: String(error) }));
} finally {
  client.close();
}
`;
}

async function withTlsBehindSocks(
  run: (dir: string, ca: string, proxy: string, url: string, connections: () => number) => Promise<void>,
) {
  const dir = await mkdtemp(join(tmpdir(), "netweir-socks-tls-"));
  const certs = await makeCertificates(dir);
  const server = serveTls(certs, "over TLS through SOCKS");
  const socks = await startMicrosocks(LOGIN);
  const proxy = `socks5h://${LOGIN.user}:${encodeURIComponent(LOGIN.password)}@${socks.address}`;
  try {
    await run(dir, certs.ca, proxy, server.url, () => server.connections);
  } finally {
    await socks.kill();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function answersOf(ran: { code: number | null; stdout: string; stderr: string }) {
  assert.equal(ran.code, 0, ran.stderr);
  return JSON.parse(ran.stdout.trim().split("\n").pop()!);
}

const EXPECTED = [[200, "over TLS through SOCKS"], [200, "over TLS through SOCKS"]];

Deno.test("on Deno, HTTPS goes through a SOCKS5 proxy with a login on one kept connection", async () => {
  await withTlsBehindSocks(async (dir, ca, proxy, url, connections) => {
    const file = join(dir, "deno_socks.ts");
    await writeFile(file, program("runtime/deno_socket.ts", "denoSocksDialer"));
    const ran = await runCommand(Deno.execPath(), ["run", "-A", "--quiet", `--cert=${ca}`, file, proxy, url]);
    assert.deepEqual(answersOf(ran), { answers: EXPECTED });
    assert.equal(connections(), 1);
  });
});

Deno.test("on Node 22, HTTPS goes through a SOCKS5 proxy with a login on one kept connection", async () => {
  await withTlsBehindSocks(async (dir, ca, proxy, url, connections) => {
    const file = join(dir, "node_socks.mts");
    await writeFile(file, program("runtime/node_socket.ts", "nodeSocksDialer"));
    const ran = await runCommand(NODE22, ["--experimental-strip-types", "--no-warnings", file, proxy, url], {
      env: { ...Deno.env.toObject(), NODE_EXTRA_CA_CERTS: ca },
    });
    assert.deepEqual(answersOf(ran), { answers: EXPECTED });
    assert.equal(connections(), 1);
  });
});

Deno.test("on Node 22, plain HTTP goes through SOCKS5 and socks5 with a wrong password names the proxy", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-socks-node-"));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("plain"));
  const socks = await startMicrosocks(LOGIN);
  try {
    const file = join(dir, "node_socks.mts");
    await writeFile(file, program("runtime/node_socket.ts", "nodeSocksDialer"));
    const url = `http://localhost:${server.addr.port}/`;
    const node = (proxy: string) =>
      runCommand(NODE22, ["--experimental-strip-types", "--no-warnings", file, proxy, url]);
    const good = `socks5://${LOGIN.user}:${encodeURIComponent(LOGIN.password)}@${socks.address}`;
    assert.deepEqual(answersOf(await node(good)), { answers: [[200, "plain"], [200, "plain"]] });
    const bad = answersOf(await node(`socks5://${LOGIN.user}:wrong-one@${socks.address}`));
    assert.equal(
      bad.message,
      `ProxyError: SOCKS proxy socks5://${LOGIN.user}@${socks.address} refused the login (wrong user name or password)`,
    );
  } finally {
    await socks.kill();
    await server.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
});
