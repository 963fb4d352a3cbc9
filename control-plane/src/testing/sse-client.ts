import { serverSentEvents, type ServerSentEvent } from "../client/server-sent-events.ts";

export type { ServerSentEvent };

export interface EventStreamClient {
  status: number;
  headers: Headers;
  /** Every event so far, in order; comments (heartbeats) counted apart. */
  events: ServerSentEvent[];
  comments: string[];
  /** Resolves when the server ends the stream (or rejects if the connection fails). */
  ended: Promise<void>;
  /** Resolves with the first event, past or future, that `match` accepts. */
  waitFor(match: (event: ServerSentEvent) => boolean, timeoutMs?: number): Promise<ServerSentEvent>;
  /** Resolves once `count` comments arrived. */
  waitForComments(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** A minimal Server-Sent Events client over fetch, as a browser's EventSource reads the wire format. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const events: ServerSentEvent[] = [];
  const comments: string[] = [];
  const wake = new Set<() => void>();
  const notify = () => {
    for (const listener of [...wake]) listener();
  };
  let finished = false;
  const ended = (async () => {
    if (!response.body) return;
    try {
      const onComment = (text: string) => {
        comments.push(text);
        notify();
      };
      for await (const event of serverSentEvents(response.body as AsyncIterable<Uint8Array>, onComment)) {
        events.push(event);
        notify();
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    } finally {
      finished = true;
      notify();
    }
  })();
  ended.catch(() => undefined);
  const waitUntil = (done: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (done()) {
          cleanup();
          resolve();
        } else if (finished) {
          cleanup();
          reject(new Error(`the stream ended before ${what}; events: ${JSON.stringify(events)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no ${what} within ${timeoutMs} ms; events: ${JSON.stringify(events)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        wake.delete(check);
      };
      wake.add(check);
      check();
    });
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    ended,
    async waitFor(match, timeoutMs = 60_000) {
      await waitUntil(() => events.some(match), timeoutMs, "matching event");
      return events.find(match) as ServerSentEvent;
    },
    waitForComments: (count, timeoutMs = 60_000) => waitUntil(() => comments.length >= count, timeoutMs, `${count} comments`),
    close: () => abort.abort(),
  };
}
