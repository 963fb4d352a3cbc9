import type Router from "@koa/router";
import { PassThrough } from "node:stream";
import { openJobEventStream } from "../../services/job-event-stream.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { authenticate, principalOf } from "../middleware/authenticate.ts";

/**
 * GET /v1/jobs/{id}/events: the job's status and progress as Server-Sent Events, from its history
 * (or after Last-Event-ID) to its terminal state, then the stream ends. The request counts once
 * against the key's rate; no pooled database connection is held while it is open.
 */
export function jobEventRoutes(router: Router<AppState>, deps: AppDeps): void {
  const read = authenticate(deps.db, "subtitles:read", deps.now);

  router.get("/v1/jobs/:id/events", read, async (ctx) => {
    const body = new PassThrough();
    // Reconnect after 2 s if the connection drops before the end; an ended stream means the job is finished.
    body.write("retry: 2000\n\n");
    const write = (text: string) => {
      if (!body.writableEnded) body.write(text);
    };
    let forget: () => void = () => undefined;
    const stream = await openJobEventStream(
      { db: deps.db, listener: deps.listener, heartbeatMs: deps.heartbeatMs, logger: ctx.state.log },
      principalOf(ctx.state).accountId,
      ctx.params.id ?? "",
      ctx.get("Last-Event-ID") || undefined,
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
    const end = () => {
      stream.close();
      body.end();
    };
    forget = deps.eventStreams.add(end);
    // The response is over: the stream ended, or the client went away.
    ctx.res.once("close", () => {
      forget();
      stream.close();
    });
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.status = 200;
    // The connection closes with the stream: a stopping server then has no idle keep-alive socket to wait for.
    ctx.set({ "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no", Connection: "close" });
    ctx.body = body;
  });
}
