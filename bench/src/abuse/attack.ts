import { request } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { Worker } from "node:worker_threads";
import { brotliCompressSync } from "node:zlib";
import { holdUploadRequests } from "./upload-attack.ts";

// What the attacking account does, all through the public API with one ordinary key: webhook endpoints
// that accept TCP and never answer (TLS never completes) fed by submit-and-cancel churn, bodies that
// inflate (a few hundred bytes of brotli that become 16 MiB of JSON), many open event streams, and PATCH
// requests held open on its own upload URL (upload-attack.ts).

export interface AttackCounts {
  churned: number;
  encodedBodies: number;
  streamsOpened: number;
  /** PATCH requests opened on the attacker's upload URL. */
  opened: number;
  statusCodes: Record<string, number>;
}

/** A TCP listener on loopback that takes every connection and never says a word. */
export async function startSilentListener(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined).on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Call {
  method: string;
  path: string;
  key: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
}

async function call(url: string, c: Call, counts: AttackCounts): Promise<{ status: number; body: string }> {
  const headers = { authorization: `Bearer ${c.key}`, ...(c.body === undefined ? {} : { "content-type": "application/json" }), ...c.headers };
  try {
    const response = await fetch(`${url}${c.path}`, { method: c.method, headers, ...(c.body === undefined ? {} : { body: c.body }) });
    const body = await response.text();
    counts.statusCodes[response.status] = (counts.statusCodes[response.status] ?? 0) + 1;
    return { status: response.status, body };
  } catch (error) {
    counts.statusCodes.error = (counts.statusCodes.error ?? 0) + 1;
    return { status: 0, body: String(error) };
  }
}

/** 123 bytes or so that brotli turns into a 16 MiB `{"words":[0,0,…]}`. */
function inflatingBody(): Buffer {
  const inner = "0,".repeat(8 * 1024 * 1024 - 1);
  return brotliCompressSync(Buffer.from(`{"words":[${inner}0]}`));
}

export const ATTACKS = ["bodies", "churn", "streams", "uploads"] as const;
export type AttackName = (typeof ATTACKS)[number];

export interface AttackOptions {
  url: string;
  key: string;
  /** One of the attacker's jobs, for renders and event streams. */
  jobId: string;
  streams: number;
  churnLoops: number;
  /** PATCH requests held open at once on the attacker's upload URL. */
  held: number;
  attacks: readonly AttackName[];
  signal: AbortSignal;
  gate?: Gate;
}

export interface AttackThread {
  /** The attack's loops stop at their next request (the streams already open stay open) until resume. */
  pause(): void;
  resume(): void;
  /** Ends the attack (closing its streams); resolves with what was sent and answered. */
  stop(): Promise<AttackCounts>;
}

/** Starts the attacks on a worker thread of their own, so that the attacker's client work never delays the second account's. */
export function startAttackThread(options: Omit<AttackOptions, "signal" | "gate">): AttackThread {
  const worker = new Worker(new URL("./attack-worker.ts", import.meta.url), { workerData: options });
  const counts = new Promise<AttackCounts>((resolve, reject) => {
    worker.once("message", (message: AttackCounts) => resolve(message));
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the attack thread exited (${code}) without its counts`)));
  });
  counts.catch(() => undefined);
  return {
    pause: () => worker.postMessage("pause"),
    resume: () => worker.postMessage("resume"),
    async stop() {
      worker.postMessage("stop");
      try {
        return await counts;
      } finally {
        await worker.terminate();
      }
    },
  };
}

/** Lets the attack's loops through, or holds them while paused. */
export interface Gate {
  pass(): Promise<void>;
  /** Called when the attack pauses or stops. */
  onPause(listener: () => void): void;
}

/** Runs every attack until the signal aborts; resolves with what was sent and answered. */
export async function runAttack(options: AttackOptions): Promise<AttackCounts> {
  const counts: AttackCounts = { churned: 0, encodedBodies: 0, streamsOpened: 0, opened: 0, statusCodes: {} };
  const { url, key, signal } = options;
  const pass = () => options.gate?.pass() ?? Promise.resolve();
  const churn = async () => {
    while ((await pass(), !signal.aborted)) {
      const submitted = await call(url, { method: "POST", path: "/v1/subtitles", key, body: JSON.stringify({ video_url: "https://videos.example.com/a.mp4" }) }, counts);
      const id = submitted.status === 202 ? (JSON.parse(submitted.body) as { id: string }).id : undefined;
      if (id) await call(url, { method: "POST", path: `/v1/jobs/${id}/cancel`, key }, counts);
      counts.churned += 1;
    }
  };
  const encoded = inflatingBody();
  const bodies = async () => {
    while ((await pass(), !signal.aborted)) {
      const headers = { "content-encoding": "br" };
      await call(url, { method: "POST", path: `/v1/jobs/${options.jobId}/renders`, key, body: encoded, headers }, counts);
      await call(url, { method: "POST", path: "/v1/subtitles", key, body: encoded, headers }, counts);
      counts.encodedBodies += 2;
    }
  };
  const running: Promise<void>[] = [];
  if (options.attacks.includes("churn")) running.push(...Array.from({ length: options.churnLoops }, churn));
  if (options.attacks.includes("bodies")) running.push(bodies());
  if (options.attacks.includes("streams")) running.push(openStreams(url, key, options, counts));
  if (options.attacks.includes("uploads")) {
    running.push(holdUploadRequests({ url, key, held: options.held, signal, pass, onPause: (listener) => options.gate?.onPause(listener) }, counts));
  }
  await Promise.all(running);
  return counts;
}

/** Opens `streams` event streams on the attacker's job, one after another, and holds them open until the signal. */
async function openStreams(url: string, key: string, options: AttackOptions, counts: AttackCounts): Promise<void> {
  const open = new Set<ReturnType<typeof request>>();
  const target = new URL(`${url}/v1/jobs/${options.jobId}/events`);
  for (let i = 0; i < options.streams && !options.signal.aborted; i++) {
    await options.gate?.pass();
    if (options.signal.aborted) break;
    await new Promise<void>((resolve) => {
      const req = request(target, { headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" } }, (response) => {
        counts.statusCodes[`stream ${response.statusCode}`] = (counts.statusCodes[`stream ${response.statusCode}`] ?? 0) + 1;
        response.on("data", () => undefined).on("error", () => undefined);
        resolve();
      });
      req.on("error", () => resolve());
      req.end();
      open.add(req);
    });
    counts.streamsOpened += 1;
  }
  await new Promise<void>((resolve) => (options.signal.aborted ? resolve() : options.signal.addEventListener("abort", () => resolve(), { once: true })));
  for (const req of open) req.destroy();
}
