import type { TestHttpsServer } from "@caption/shared/testing/https-server";

// The second account, working normally: one webhook endpoint whose receiver notes when each event
// arrived, measured from the event's own timestamp (the database's clock on this machine).

export interface WebhookTimer {
  /** Submits and cancels one job; resolves with the seconds from the cancel event to its arrival. */
  measureOne(timeoutMs: number): Promise<number | null>;
}

export async function startWebhookTimer(server: TestHttpsServer, url: string, key: string, path: string): Promise<WebhookTimer> {
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  server.route(path, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    res.writeHead(204).end();
    const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type: string; timestamp: string; data: { id: string } };
    if (payload.type !== "job.canceled" || arrivals.has(payload.data.id)) return;
    arrivals.set(payload.data.id, (Date.now() - Date.parse(payload.timestamp)) / 1000);
    waiters.get(payload.data.id)?.();
  });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const registered = await fetch(`${url}/v1/webhook_endpoints`, { method: "POST", headers, body: JSON.stringify({ url: server.url(path), events: ["job.canceled"] }) });
  if (registered.status !== 201) throw new Error(`the victim's endpoint was refused: ${registered.status} ${await registered.text()}`);
  return {
    async measureOne(timeoutMs) {
      const submitted = await fetch(`${url}/v1/subtitles`, { method: "POST", headers, body: JSON.stringify({ video_url: "https://videos.example.com/v.mp4" }) });
      const { id } = (await submitted.json()) as { id: string };
      const arrived = new Promise<void>((resolve) => waiters.set(id, resolve));
      await fetch(`${url}/v1/jobs/${id}/cancel`, { method: "POST", headers });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([arrived, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      waiters.delete(id);
      return arrivals.get(id) ?? null;
    },
  };
}
