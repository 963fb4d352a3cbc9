import { text } from "node:stream/consumers";
import { Webhook } from "standardwebhooks";
import type { TestHttpsServer } from "@caption/shared/testing/https-server";

/** What a receiver needs of a test HTTPS server. */
export type RoutingServer = Pick<TestHttpsServer, "url" | "route">;

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Parsed and verified with the endpoint's secret (standardwebhooks, the spec authors' library). */
  payload: { type: string; timestamp: string; data: { id: string } & Record<string, unknown> };
  answered: number | null;
  /** False once the answer is out or the connection closed: a request never answered stays open until the sender gives up on it. */
  open: boolean;
}

export interface WebhookReceiver {
  url: string;
  /** Every request, in arrival order, duplicates included. */
  received: ReceivedWebhook[];
  /** Requests whose signature did not verify (answered 401): none, in a passing test. */
  rejected: string[];
  /** Set once the endpoint is registered: requests before that are answered 500. */
  secret: string | undefined;
  /** Each event once, by webhook-id: what a receiver that drops duplicates keeps. */
  unique(): ReceivedWebhook[];
  waitFor(match: (r: ReceivedWebhook) => boolean, timeoutMs?: number): Promise<ReceivedWebhook>;
}

export type Answer = (request: ReceivedWebhook, attemptOfThisEvent: number) => number | "never";

/**
 * A webhook receiver at `path` of a test HTTPS server: it verifies each request's signature as any
 * receiver would, records it, and answers what `answer` says (a status, or never).
 */
export function webhookReceiver(server: RoutingServer, path: string, answer: Answer = () => 204): WebhookReceiver {
  const received: ReceivedWebhook[] = [];
  const waiters = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: server.url(path),
    received,
    rejected: [],
    secret: undefined,
    unique: () => [...new Map(received.map((r) => [r.id, r])).values()],
    waitFor(match, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(match);
          if (!found) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${path}: no matching webhook within ${timeoutMs} ms; got ${JSON.stringify(received.map((r) => [r.id, r.payload.type, r.answered]))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
  server.route(path, async (req, res) => {
    const body = await text(req);
    if (!receiver.secret) {
      res.writeHead(500).end();
      return;
    }
    const headers = req.headers as Record<string, string>;
    let payload: ReceivedWebhook["payload"];
    try {
      payload = new Webhook(receiver.secret).verify(body, headers) as ReceivedWebhook["payload"];
    } catch (error) {
      receiver.rejected.push(`${(error as Error).message}: ${JSON.stringify(headers)} ${body.slice(0, 200)}`);
      res.writeHead(401).end();
      return;
    }
    const request: ReceivedWebhook = { id: headers["webhook-id"] ?? "", timestamp: headers["webhook-timestamp"] ?? "", signature: headers["webhook-signature"] ?? "", body, payload, answered: null, open: true };
    res.once("close", () => (request.open = false));
    const attempt = received.filter((r) => r.id === request.id).length + 1;
    const status = answer(request, attempt);
    received.push(request);
    if (status !== "never") {
      request.answered = status;
      res.writeHead(status).end();
    }
    for (const wake of [...waiters]) wake();
  });
  return receiver;
}
