/**
 * The system's hosts file (/etc/hosts; on Windows, drivers\etc\hosts), read the way the system's own lookup reads it
 * before it asks DNS ("files dns" in nsswitch.conf): a name listed there is answered from it and never sent to a DNS
 * server. Read asynchronously, once, and again at most every {@link HOSTS_TTL} seconds, so an edit is seen.
 */
import { readFile } from "node:fs/promises";
import { platform } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isIP } from "node:net";

/** Seconds an answer from the hosts file, or from the system's lookup, is kept: they carry no TTL of their own. */
export const HOSTS_TTL = 60;

/** Where the system keeps its hosts file. */
export function systemHostsPath(): string {
  if (platform() !== "win32") return "/etc/hosts";
  return join(process.env.SystemRoot ?? "C:\\Windows", "System32", "drivers", "etc", "hosts");
}

/** Name (lower case) to its addresses, IPv4 ones first, each list in the file's order. */
export function parseHosts(text: string): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const line of text.split(/\r?\n/)) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    // An IPv6 address with a zone (fe80::1%lo0) cannot be connected to by name alone: it is skipped.
    if (!address || address.includes("%") || isIP(address) === 0 || names.length === 0) continue;
    for (const name of names) {
      const key = name.toLowerCase();
      const list = byName.get(key) ?? [];
      if (!list.includes(address)) list.push(address);
      byName.set(key, list);
    }
  }
  for (const list of byName.values()) list.sort((a, b) => isIP(a) - isIP(b));
  return byName;
}

/** A hosts file, read on first need and again once {@link HOSTS_TTL} has passed; a missing file lists nothing. */
export class HostsFile {
  readonly #path: string;
  readonly #now: () => number;
  #read: Promise<Map<string, string[]>> | undefined;
  #readAt = 0;

  constructor(path = systemHostsPath(), now: () => number = () => performance.now()) {
    this.#path = path;
    this.#now = now;
  }

  /** The addresses the file gives `name`, or undefined when it does not list it. */
  async addresses(name: string): Promise<string[] | undefined> {
    if (this.#read === undefined || this.#now() - this.#readAt > HOSTS_TTL * 1000) {
      this.#readAt = this.#now();
      this.#read = readFile(this.#path, "utf8").then(parseHosts, () => new Map());
    }
    return (await this.#read).get(name);
  }
}
