import type { IncomingMessage, ServerResponse } from "node:http";
import { PassThrough } from "node:stream";
import { JobEventSchema } from "@caption/shared/api/job-event";
import { MAX_EVENT_STREAMS_PER_KEY } from "../../services/event-stream-leases.ts";
import { openJobEventStream } from "../../services/job-event-stream.ts";
import { principalOf } from "../middleware/authenticate.ts";
import { notFoundError, rateLimited, ref } from "../openapi-parts.ts";
import { jobIdParam } from "../path-params.ts";
import { defineRoute } from "../route-spec.ts";

/**
 * GET /v1/jobs/{id}/events: the job's status and progress as Server-Sent Events, from its history
 * (or after Last-Event-ID) to its terminal state, then the stream ends. The request counts once
 * against the key's rate and holds one of the key's MAX_EVENT_STREAMS_PER_KEY leases while it is open;
 * no pooled database connection is held while it is open.
 */
export const jobEventRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/jobs/{id}/events",
    doc: {
      operationId: "streamJobEvents",
      tags: ["Jobs"],
      summary: "Follow a job live (Server-Sent Events)",
      description:
        "A text/event-stream of the job's history and then its changes as they happen: `event: status` on every change of state, `event: progress` as progress rises, each with `id:` (send it back as `Last-Event-ID` to resume after it) and `data:` a JobEvent. " +
        "A comment line `: heartbeat` comes every 15 s. The stream ends after the terminal state (completed, failed, canceled); fetch the job for its result links. " +
        `At most ${MAX_EVENT_STREAMS_PER_KEY} streams are open at once per API key (over all replicas); another is 429 RATE_LIMITED with Retry-After.`,
    },
    auth: { scope: "subtitles:read", checkedBy: "middleware" },
    params: { id: jobIdParam },
    headers: { "Last-Event-ID": "Resume after this event id" },
    responses: {
      "200": {
        description: "The event stream; each event's data is a JobEvent",
        content: {
          "text/event-stream": {
            schema: { type: "string", description: "Server-Sent Events; each data line is a JobEvent", "x-event-data": ref(JobEventSchema) },
            example: 'id: 42\nevent: status\ndata: {"job_id":"job_01…","status":"rendering","progress":45,"at":"2026-12-16T09:00:00.000Z"}\n\n',
          },
        },
      },
      "204": { description: "The job is finished and Last-Event-ID is its last event: nothing more will come (EventSource stops reconnecting)" },
      ...notFoundError,
      "429": { ...rateLimited, description: `RATE_LIMITED: the key's requests per minute are used up, or it has ${MAX_EVENT_STREAMS_PER_KEY} event streams open` },
    },
    async handle(ctx, { deps }) {
      const gone = clientGone(ctx.req, ctx.res);
      const body = new PassThrough();
      // Reconnect after 2 s if the connection drops before the end; an ended stream means the job is finished.
      body.write("retry: 2000\n\n");
      const write = (text: string) => {
        if (!body.writableEnded) body.write(text);
      };
      let forget: () => void = () => undefined;
      const principal = principalOf(ctx.state);
      const stream = await openJobEventStream(
        { db: deps.db, listener: deps.listener, heartbeatMs: deps.heartbeatMs, logger: ctx.state.log, leases: deps.streamLeases },
        { accountId: principal.accountId, apiKeyId: principal.apiKeyId, jobId: ctx.params.id ?? "", lastEventId: ctx.get("Last-Event-ID") || undefined, gone },
        {
          event: (id, type, data) => write(`id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`),
          comment: (text) => write(`: ${text}\n\n`),
          end: () => {
            forget();
            body.end();
          },
        },
      );
      if (!stream) {
        // The job is finished and the client saw its last event: 204 tells an EventSource to stop reconnecting.
        ctx.status = 204;
        return;
      }
      // The client left while the stream was opened: it closed itself, and there is no one to answer.
      if (gone.aborted) return;
      forget = deps.eventStreams.add(() => {
        stream.close();
        body.end();
      });
      // The response is over: the stream ended, or the client went away (the stream closes itself then).
      gone.addEventListener("abort", () => forget(), { once: true });
      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      ctx.status = 200;
      // The connection closes with the stream: a stopping server then has no idle keep-alive socket to wait for.
      ctx.set({ "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no", Connection: "close" });
      ctx.body = body;
    },
  }),
];

/**
 * Aborted once the response is over, whenever that is: a client that resets its connection during
 * authentication or the job's lookup has closed the response before any handler could listen for it.
 */
function clientGone(request: IncomingMessage, response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (response.closed || response.destroyed || request.socket.destroyed) controller.abort();
  else response.once("close", () => controller.abort());
  return controller.signal;
}
