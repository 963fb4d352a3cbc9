import { isTerminal } from "@caption/shared/api/job";
import type { JobEvent } from "@caption/shared/api/job-event";
import type { Db } from "@caption/shared/db/database";
import type { JobEventType } from "@caption/shared/db/tables";
import type { Logger } from "pino";
import { jobEventsAfter, lastJobEventId } from "../db/job-event-repository.ts";
import { findJob } from "../db/job-repository.ts";
import type { NotificationListener } from "@caption/shared/db/notification-listener";
import { JOB_EVENTS_CHANNEL } from "@caption/shared/jobs/catalog";
import type { StreamLeases } from "./event-stream-leases.ts";
import { presentProgress } from "./job-presenter.ts";
import { notFound } from "./service-error.ts";


/** Where a stream's events go (the HTTP layer frames them as Server-Sent Events). */
export interface JobEventSink {
  event(id: number, type: JobEventType, data: JobEvent): void;
  comment(text: string): void;
  end(): void;
}

export interface JobEventStreamDeps {
  db: Db;
  listener: NotificationListener;
  heartbeatMs: number;
  logger: Logger;
  leases: StreamLeases;
}

export interface JobEventStreamRequest {
  accountId: string;
  /** The key the stream counts against (MAX_EVENT_STREAMS_PER_KEY). */
  apiKeyId: string;
  jobId: string;
  lastEventId: string | undefined;
  /** Aborted when the client goes away, at any moment: before the stream opens as well as after. */
  gone: AbortSignal;
}

/**
 * Streams a job's history after `lastEventId` (all of it without one) and then each change as it
 * commits, ending after the terminal state. Null when there is nothing left to stream: the job is
 * finished and the client has seen its last event (the HTTP layer answers 204, which tells an
 * EventSource to stop reconnecting). Every event comes from the job_events table, so any
 * API process serves any stream: a notification only says "look again", a heartbeat looks again too
 * (in case a notification was lost), and no query holds a pooled connection between events.
 */
export async function openJobEventStream(deps: JobEventStreamDeps, request: JobEventStreamRequest, sink: JobEventSink): Promise<{ close(): void } | null> {
  const { jobId, gone } = request;
  const job = await findJob(deps.db, request.accountId, jobId);
  if (!job) throw notFound("job");
  let lastId = /^\d{1,18}$/.test(request.lastEventId ?? "") ? Number(request.lastEventId) : 0;
  if (isTerminal(job.status) && lastId > 0 && lastId >= (await lastJobEventId(deps.db, jobId))) return null;
  // Throws 429 when the key holds all its streams; taken last, so a 404 or 204 never holds one.
  const release = await deps.leases.acquire(request.apiKeyId);
  // A client gone while the stream was being opened gets nothing set up for it.
  if (gone.aborted) {
    release();
    return { close: () => undefined };
  }

  let closed = false;
  let reading = false;
  let readAgain = false;
  const subscriptions: (() => void)[] = [];

  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    for (const unsubscribe of subscriptions) unsubscribe();
    gone.removeEventListener("abort", close);
    release();
  };
  gone.addEventListener("abort", close, { once: true });
  const finish = () => {
    close();
    sink.end();
  };

  /** Sends what is new; concurrent calls fold into one more pass. Ends the stream at the terminal state. */
  const readNew = async (): Promise<boolean> => {
    if (reading) {
      readAgain = true;
      return true;
    }
    reading = true;
    try {
      do {
        readAgain = false;
        for (;;) {
          const rows = await jobEventsAfter(deps.db, jobId, lastId);
          for (const row of rows) {
            if (closed) return true;
            lastId = row.id;
            sink.event(row.id, row.type, {
              job_id: row.job_id,
              status: row.status,
              progress: presentProgress(row.progress),
              at: new Date(row.created_at).toISOString(),
            });
            if (row.type === "status" && isTerminal(row.status)) {
              finish();
              return true;
            }
          }
          if (rows.length === 0) break;
        }
      } while (readAgain && !closed);
      return true;
    } catch (error) {
      // The next notification or heartbeat tries again; the client keeps its stream.
      deps.logger.warn({ err: error, job_id: jobId }, "event stream: reading events failed");
      return false;
    } finally {
      reading = false;
    }
  };

  subscriptions.push(deps.listener.subscribe(JOB_EVENTS_CHANNEL, jobId, () => void readNew()));
  subscriptions.push(deps.listener.onConnected(() => void readNew()));
  const timer = setInterval(() => {
    sink.comment("heartbeat");
    void readNew();
  }, deps.heartbeatMs);

  void readNew().then((read) => {
    // A client that already saw the terminal event (Last-Event-ID) gets nothing more: the stream ends.
    if (read && !closed && isTerminal(job.status)) finish();
  });
  return { close };
}
