import { setTimeout as delay } from "node:timers/promises";
import type { PreviewRequest } from "@caption/shared/api/preview";

// A client of POST /v1/previews for tools: a refusal is an error naming the API's code; a 503 (workers busy,
// or none yet) is tried again after its Retry-After, a few times.

const ATTEMPTS = 5;

export function previewClient(baseUrl: string, apiKey: string): (request: PreviewRequest) => Promise<Buffer> {
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${baseUrl}/v1/previews`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify(request) });
      if (response.ok) return Buffer.from(await response.arrayBuffer());
      const text = await response.text();
      if (response.status !== 503 || attempt >= ATTEMPTS) throw new Error(`POST /v1/previews (${request.preset}, ${request.width}x${request.height}) → ${response.status} ${text}`);
      await delay(1000 * Number(response.headers.get("retry-after") ?? 1));
    }
  };
}
