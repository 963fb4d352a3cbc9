import { createParser } from "eventsource-parser";
import { ApiError, apiUrl, errorOf, pause } from "./client.ts";
import type { JobEvent } from "./types.ts";

const TERMINAL = new Set(["completed", "failed", "canceled"]);

/**
 * Follows a job's event stream until its terminal state. A browser's EventSource cannot send the key, so the
 * stream is read with fetch and an SSE parser, reconnecting as EventSource would: after the server's `retry`,
 * with the last event's id as Last-Event-ID, so nothing is missed or repeated. A refusal other than a rate
 * limit or an outage (401, 404) ends it with that error.
 */
export async function followJob(key: string, jobId: string, onEvent: (event: JobEvent) => void, signal: AbortSignal): Promise<void> {
  let lastEventId: string | undefined;
  let retryMs = 2000;
  let ended = false;
  const parser = createParser({
    onEvent(message) {
      if (message.id !== undefined) lastEventId = message.id;
      const event = JSON.parse(message.data) as JobEvent;
      if (TERMINAL.has(event.status)) ended = true;
      onEvent(event);
    },
    onRetry(ms) {
      retryMs = ms;
    },
  });
  while (!ended) {
    let wait = retryMs;
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "text/event-stream" };
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
      const response = await fetch(apiUrl(`v1/jobs/${encodeURIComponent(jobId)}/events`), { headers, signal, cache: "no-store", credentials: "omit" });
      // 204: the job ended before this request; its last state came on an earlier one.
      if (response.status === 204) return;
      if (!response.ok) throw await errorOf(response);
      parser.reset();
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (error) {
      if (signal.aborted) throw error;
      if (error instanceof ApiError) {
        if (error.status !== 429 && error.status < 500) throw error;
        if (error.retryAfter !== null) wait = error.retryAfter * 1000;
      }
    }
    if (!ended) await pause(wait, signal);
  }
}
