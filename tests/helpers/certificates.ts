/**
 * A private CA and certificates signed by it, made with openssl for one test: a server certificate for 127.0.0.1 only
 * (its name in the subject alternative names, as clients check it) or for the names given, and a client certificate.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export type Certificates = Record<"ca" | "serverCert" | "serverKey" | "clientCert" | "clientKey", string>;

/**
 * A CA, a server certificate, and a client certificate, all signed by the CA. The server certificate is for
 * `serverNames` (subject alternative names as openssl writes them: `DNS:shop.test`, `IP:127.0.0.1`), 127.0.0.1 only
 * by default.
 */
export async function makeCertificates(
  dir: string,
  serverNames: string[] = ["IP:127.0.0.1"],
): Promise<Certificates> {
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run("openssl", args, { cwd: dir });
  await openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=Netweir test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  const serverSubject = `/CN=${serverNames[0].replace(/^\w+:/, "")}`;
  for (
    const [name, subject, san] of [["server", serverSubject, serverNames.join(",")], ["client", "/CN=crawler", ""]]
  ) {
    await openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      subject,
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
    );
    const extensions = san ? `subjectAltName=${san}\n` : "extendedKeyUsage=clientAuth\n";
    await writeFile(path(`${name}.ext`), extensions);
    await openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.pem`,
    );
  }
  return {
    ca: path("ca.pem"),
    serverCert: path("server.pem"),
    serverKey: path("server.key"),
    clientCert: path("client.pem"),
    clientKey: path("client.key"),
  };
}
