import { setTimeout as sleep } from "node:timers/promises";
import { isTerminal } from "@caption/shared/api/job";
import type { JobEvent } from "@caption/shared/api/job-event";
import { CaptionApiError } from "./api-client.ts";

const RECONNECT_MS = 1000;
const MAX_RECONNECTS = 30;

/** One Server-Sent Event's fields. */
export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/** Splits a Server-Sent Events text stream into events, as EventSource reads it (comments dropped). */
export async function* serverSentEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let current: { id?: string; event?: string; data?: string } = {};
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (current.data !== undefined) yield { ...(current.id === undefined ? {} : { id: current.id }), event: current.event ?? "message", data: current.data };
        current = {};
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") current.data = current.data === undefined ? value : `${current.data}\n${value}`;
      else if (field === "id") current.id = value;
      else if (field === "event") current.event = value;
    }
  }
}

/**
 * Follows a job over GET /v1/jobs/{id}/events until its terminal event, reconnecting with Last-Event-ID when the
 * connection drops; `onEvent` sees every status and progress event once. Resolves with the terminal status.
 */
export async function followJob(baseUrl: string, key: string, jobId: string, onEvent: (event: JobEvent) => void, signal?: AbortSignal): Promise<JobEvent["status"]> {
  let lastId: string | undefined;
  let last: JobEvent["status"] | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`${baseUrl}/v1/jobs/${encodeURIComponent(jobId)}/events`, {
        headers: { authorization: `Bearer ${key}`, accept: "text/event-stream", ...(lastId === undefined ? {} : { "last-event-id": lastId }) },
        ...(signal === undefined ? {} : { signal }),
      });
      // 204: the stream already ended with the terminal event we saw.
      if (response.status === 204 && last !== undefined) return last;
      if (!response.ok || response.body === null) {
        const body = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
        throw new CaptionApiError(body?.error?.code ?? `HTTP_${response.status}`, body?.error?.message ?? `the event stream answered ${response.status}`, response.status);
      }
      for await (const event of serverSentEvents(response.body)) {
        if (event.id !== undefined) lastId = event.id;
        if (event.event !== "status" && event.event !== "progress") continue;
        const data = JSON.parse(event.data) as JobEvent;
        last = data.status;
        onEvent(data);
        if (isTerminal(data.status)) return data.status;
      }
    } catch (error) {
      if (signal?.aborted || error instanceof CaptionApiError || attempt >= MAX_RECONNECTS) throw error;
    }
    // The stream ended or broke before the terminal event (an API restart): pick up where it stopped.
    await sleep(RECONNECT_MS, undefined, signal === undefined ? {} : { signal });
  }
}
