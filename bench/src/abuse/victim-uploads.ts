import { randomBytes } from "node:crypto";

// The second account's uploads beside the attack: each connection appends small chunks to an upload of its
// own, one PATCH after another (each takes the upload's lock and a connection of the lock pool, which is what
// held requests once took from everyone), and starts a new upload when one is full.

const CHUNK = randomBytes(4096);
const UPLOAD_BYTES = 64 * 1024 * 1024;

interface Writer {
  url: string;
  offset: number;
}

export interface UploadLoad {
  /** Sends PATCHes on `connections` uploads for `seconds`, pushing each one's time (ms) onto `latencies`. */
  run(seconds: number, latencies: number[]): Promise<{ requests: number; unexpected: number }>;
}

export function victimUploads(url: string, key: string, connections: number): UploadLoad {
  const writers: Writer[] = [];
  const newWriter = async (): Promise<Writer> => {
    const created = await fetch(`${url}/v1/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ size_bytes: UPLOAD_BYTES }),
    });
    const body = (await created.json()) as { upload_url?: string };
    if (created.status !== 201 || !body.upload_url) throw new Error(`the second account's upload was refused: ${created.status} ${JSON.stringify(body)}`);
    return { url: body.upload_url, offset: 0 };
  };
  const storedOffset = async (writer: Writer) => {
    const answer = await fetch(writer.url, { method: "HEAD", headers: { "tus-resumable": "1.0.0" } });
    return answer.status === 200 ? Number(answer.headers.get("upload-offset")) : writer.offset;
  };
  return {
    async run(seconds, latencies) {
      const until = performance.now() + seconds * 1000;
      let requests = 0;
      let unexpected = 0;
      const write = async (slot: number) => {
        while (performance.now() < until) {
          let writer = writers[slot] ?? (writers[slot] = await newWriter());
          if (writer.offset + CHUNK.length > UPLOAD_BYTES) writer = writers[slot] = await newWriter();
          const started = performance.now();
          const answer = await fetch(writer.url, {
            method: "PATCH",
            headers: { "tus-resumable": "1.0.0", "upload-offset": String(writer.offset), "content-type": "application/offset+octet-stream" },
            body: CHUNK,
          }).catch(() => undefined);
          await answer?.arrayBuffer();
          latencies.push(performance.now() - started);
          if (answer?.status === 204) {
            writer.offset += CHUNK.length;
            requests += 1;
          } else {
            unexpected += 1;
            writer.offset = await storedOffset(writer);
          }
        }
      };
      await Promise.all(Array.from({ length: connections }, (_, slot) => write(slot)));
      return { requests, unexpected };
    },
  };
}
