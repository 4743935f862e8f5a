/**
 * HTTPS through Netweir's HTTP/1.1 client as a crawl runs it, on Deno and on Node 22, against a server whose
 * certificate a private CA signed (made with openssl for the test): trusted the way each runtime is told to trust a CA
 * (`deno run --cert`, `NODE_EXTRA_CA_CERTS`), it fetches, on one kept connection; not trusted, it fails as a TLS
 * failure, which is what the crawl's log line then says. Each side runs in a process of its own, as a user's would.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Certificates, makeCertificates } from "../helpers/certificates.ts";
import { runCommand } from "../helpers/command.ts";
import { serveTls } from "../helpers/tls_server.ts";
import { NODE22 } from "../helpers/node_package.ts";

const SRC = new URL("../../src/", import.meta.url);

/** A program that GETs URL twice through the client and prints one JSON line: statuses, bodies, or the failure. */
function fetchTwice(dialModule: string, dialName: string, dial: string): string {
  return `
import { wireHttpClient } from ${JSON.stringify(new URL("runtime/h1/client.ts", SRC).href)};
import { ${dialName} } from ${JSON.stringify(new URL(dialModule, SRC).href)};
import { networkFailureKind } from ${JSON.stringify(new URL("fetch/network_errors.ts", SRC).href)};
import process from "node:process";
const client = wireHttpClient({ dial: ${dial} });
try {
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const response = await client.fetch(new URL(process.argv.at(-1)), { method: "GET", headers: new Headers() });
    answers.push([response.status, new TextDecoder().decode(await response.bytes(1e6))]);
  }
  console.log(JSON.stringify({ answers }));
} catch (error) {
  console.log(JSON.stringify({ kind: networkFailureKind(error), message: String(error) }));
} finally {
  client.close();
}
`;
}

interface Outcome {
  answers?: Array<[number, string]>;
  kind?: string;
  message?: string;
}

async function withTls(
  test: (certs: Certificates, dir: string, url: string, server: { connections: number }) => Promise<void>,
) {
  const dir = await mkdtemp(join(tmpdir(), "netweir-h1-tls-"));
  const certs = await makeCertificates(dir);
  const server = serveTls(certs, "over TLS");
  try {
    await test(certs, dir, server.url, server);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function outcome(ran: { code: number | null; stdout: string; stderr: string }): Outcome {
  assert.equal(ran.code, 0, ran.stderr);
  return JSON.parse(ran.stdout.trim().split("\n").pop()!);
}

Deno.test("on Deno, HTTPS to a server of a CA given with --cert is fetched on one kept connection", async () => {
  await withTls(async (certs, dir, url, server) => {
    const program = join(dir, "deno_fetch.ts");
    await writeFile(program, fetchTwice("runtime/deno_socket.ts", "dialDeno", "dialDeno"));
    const trusted = outcome(
      await runCommand(Deno.execPath(), ["run", "-A", "--quiet", `--cert=${certs.ca}`, program, url]),
    );
    assert.deepEqual(trusted.answers, [[200, "over TLS"], [200, "over TLS"]]);
    assert.equal(server.connections, 1);
    const untrusted = outcome(await runCommand(Deno.execPath(), ["run", "-A", "--quiet", program, url]));
    assert.equal(untrusted.answers, undefined);
    assert.equal(untrusted.kind, "tls", untrusted.message);
  });
});

Deno.test("on Node 22, HTTPS to a server of a CA in NODE_EXTRA_CA_CERTS is fetched on one kept connection", async () => {
  await withTls(async (certs, dir, url, server) => {
    const program = join(dir, "node_fetch.mts");
    await writeFile(program, fetchTwice("runtime/node_socket.ts", "nodeDialer", "nodeDialer()"));
    const node = (extra: Record<string, string>) =>
      runCommand(NODE22, ["--experimental-strip-types", "--no-warnings", pathToFileURL(program).pathname, url], {
        env: { ...Deno.env.toObject(), ...extra },
      });
    const trusted = outcome(await node({ NODE_EXTRA_CA_CERTS: certs.ca }));
    assert.deepEqual(trusted.answers, [[200, "over TLS"], [200, "over TLS"]]);
    assert.equal(server.connections, 1);
    const untrusted = outcome(await node({}));
    assert.equal(untrusted.answers, undefined);
    assert.equal(untrusted.kind, "tls", untrusted.message);
  });
});
