/**
 * A small authoritative DNS server on 127.0.0.1 (UDP, node:dgram), for tests that point a crawl at it with the
 * `dns_servers` setting. It answers A and AAAA queries from a table, each record with the TTL the test gives, says
 * NXDOMAIN for a name it does not know, and counts the queries it got per name and type, so a test can assert how
 * often the crawl asked. A name can be made slow (its answer sent after a delay) or refused (REFUSED, rcode 5).
 */
import { createSocket, type RemoteInfo, type Socket } from "node:dgram";

/** One name's records. */
export interface DnsEntry {
  /** IPv4 addresses (A records). */
  a?: string[];
  /** IPv6 addresses (AAAA records). */
  aaaa?: string[];
  /** Seconds, for every record of the name; 300 when not given. */
  ttl?: number;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** Answer REFUSED instead of the records. */
  refuse?: boolean;
}

export interface DnsServer {
  /** "127.0.0.1:PORT", as the `dns_servers` setting takes it. */
  readonly address: string;
  readonly port: number;
  /** The records, by lower-case name; the test may change them while the server runs. */
  readonly names: Map<string, DnsEntry>;
  /** Queries got for `name` (any type, or the one given). */
  queries(name: string, type?: "A" | "AAAA"): number;
  /** Queries got in all. */
  total(): number;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const TYPE_NAMES: Record<number, string> = { [TYPE_A]: "A", [TYPE_AAAA]: "AAAA" };

/** A question's name, type and where the question section ends. */
function readQuestion(packet: Buffer): { name: string; type: number; end: number } | undefined {
  let offset = 12;
  const labels: string[] = [];
  while (offset < packet.length) {
    const length = packet[offset];
    if (length === 0) break;
    if (length > 63) return undefined; // compression is not used in questions
    labels.push(packet.subarray(offset + 1, offset + 1 + length).toString("latin1"));
    offset += 1 + length;
  }
  if (offset + 5 > packet.length) return undefined;
  return { name: labels.join(".").toLowerCase(), type: packet.readUInt16BE(offset + 1), end: offset + 5 };
}

function ipv4Bytes(address: string): Buffer {
  return Buffer.from(address.split(".").map(Number));
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const groups = (part: string | undefined) => part ? part.split(":") : [];
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill("0"), ...back];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => bytes.writeUInt16BE(parseInt(group, 16), index * 2));
  return bytes;
}

/** The reply to `query`: its id and question echoed, the answers for `entry`, or the `rcode` given. */
function reply(query: Buffer, question: { type: number; end: number }, entry: DnsEntry | undefined): Buffer {
  const rcode = entry === undefined ? 3 : entry.refuse ? 5 : 0;
  const addresses = rcode !== 0
    ? []
    : question.type === TYPE_A
    ? entry!.a ?? []
    : question.type === TYPE_AAAA
    ? entry!.aaaa ?? []
    : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, the query's RD, AA; RA; the rcode.
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((address) => {
    const data = question.type === TYPE_A ? ipv4Bytes(address) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(question.type, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(entry!.ttl ?? 300, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, question.end), ...answers]);
}

/** Starts a DNS server on a free UDP port of 127.0.0.1 with `names` (name to records). */
export async function startDnsServer(names: Record<string, DnsEntry> = {}): Promise<DnsServer> {
  const table = new Map(Object.entries(names).map(([name, entry]) => [name.toLowerCase(), entry]));
  const counts = new Map<string, number>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const socket: Socket = createSocket("udp4");
  socket.on("message", (packet: Buffer, from: RemoteInfo) => {
    if (packet.length < 12) return; // garbage: a real server drops it too
    const question = readQuestion(packet);
    if (question === undefined) return;
    const key = `${question.name} ${TYPE_NAMES[question.type] ?? question.type}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const entry = table.get(question.name);
    const send = () => socket.send(reply(packet, question, entry), from.port, from.address);
    if (!entry?.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, entry.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => resolve());
  });
  const port = socket.address().port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    names: table,
    queries: (name, type) => {
      const lower = name.toLowerCase();
      if (type) return counts.get(`${lower} ${type}`) ?? 0;
      let sum = 0;
      for (const [key, count] of counts) if (key.startsWith(`${lower} `)) sum += count;
      return sum;
    },
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise((resolve) => socket.close(() => resolve()));
    },
  };
}
