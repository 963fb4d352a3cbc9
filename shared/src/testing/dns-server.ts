import { createSocket, type RemoteInfo } from "node:dgram";
import { isIPv4, isIPv6 } from "node:net";
import { ipv6Groups } from "../net/address-policy.ts";

// A DNS server on loopback UDP for tests: it answers A and AAAA questions from a table, or never
// answers at all (a name server that drops queries), and counts what it was asked.

export interface DnsQuestion {
  name: string;
  /** "A", "AAAA" or the type's number. */
  type: string;
}

export interface TestDnsServer {
  /** "127.0.0.1:port", for DnsOptions.servers. */
  address: string;
  questions: DnsQuestion[];
  close(): Promise<void>;
}

/** The addresses of `name`, or "never" to drop the query unanswered. */
export type DnsAnswer = (name: string) => string[] | "never";

const TYPES: Record<number, string> = { 1: "A", 28: "AAAA" };

function readName(packet: Buffer, start: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = start;
  for (let length = packet[at] ?? 0; length > 0; length = packet[at] ?? 0) {
    labels.push(packet.subarray(at + 1, at + 1 + length).toString("latin1"));
    at += 1 + length;
  }
  return { name: labels.join("."), end: at + 1 };
}

function record(type: number, address: string): Buffer {
  const data = type === 1 ? Buffer.from(address.split(".").map(Number)) : ipv6Bytes(address);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0); // the question's name
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // IN
  head.writeUInt32BE(60, 6);
  head.writeUInt16BE(data.length, 10);
  return Buffer.concat([head, data]);
}

function ipv6Bytes(address: string): Buffer {
  const bytes = Buffer.alloc(16);
  ipv6Groups(address).forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}

function reply(query: Buffer, type: number, addresses: readonly string[], questionEnd: number): Buffer {
  const fits = addresses.filter((a) => (type === 1 ? isIPv4(a) : type === 28 ? isIPv6(a) : false));
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180 | (addresses.length === 0 ? 3 : 0), 2); // NXDOMAIN when the name has nothing
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(fits.length, 6);
  header.writeUInt32BE(0, 8);
  return Buffer.concat([header, query.subarray(12, questionEnd + 4), ...fits.map((a) => record(type, a))]);
}

export async function startTestDnsServer(answer: DnsAnswer): Promise<TestDnsServer> {
  const socket = createSocket("udp4");
  const questions: DnsQuestion[] = [];
  socket.on("message", (query: Buffer, from: RemoteInfo) => {
    if (query.length < 17) return;
    const { name, end } = readName(query, 12);
    const type = query.readUInt16BE(end);
    questions.push({ name, type: TYPES[type] ?? String(type) });
    const addresses = answer(name);
    if (addresses === "never") return;
    socket.send(reply(query, type, addresses, end), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
