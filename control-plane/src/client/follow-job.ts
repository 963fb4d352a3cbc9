import { setTimeout as sleep } from "node:timers/promises";
import { isTerminal } from "@caption/shared/api/job";
import type { JobEvent } from "@caption/shared/api/job-event";
import { CaptionApiError, refusal } from "./api-client.ts";
import { serverSentEvents } from "./server-sent-events.ts";

const RECONNECT_MS = 1000;
const MAX_RECONNECTS = 30;

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
        throw refusal(response.status, await response.text().catch(() => ""), `the event stream answered ${response.status}`);
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
