import pg from "pg";
import type { Logger } from "pino";
import { errorText, retryDelayMs } from "./database-retry.ts";
import { setTimeout as delay } from "node:timers/promises";

// PostgreSQL LISTEN on a connection of its own (a LISTEN must outlive any one query, so it cannot
// borrow a pooled connection). Like every connection of ours it carries an error listener for its
// whole life: a database restart or a broken socket never ends the process. The listener reconnects
// with backoff (100 ms doubling to 1 s) and then tells its subscribers to catch up, since
// notifications sent while it was away are lost.

export type NotificationHandler = (payload: string) => void;

export interface NotificationListener {
  /** Calls `handler` for each notification on `channel` whose payload is `payload` (any payload when null). Returns the unsubscribe. */
  subscribe(channel: string, payload: string | null, handler: NotificationHandler): () => void;
  /** Calls `handler` after every (re)connection: notifications may have been missed. Returns the unsubscribe. */
  onConnected(handler: () => void): () => void;
  /** Handlers subscribed now, of both kinds: what open event streams and waiting requests hold. */
  subscriptions(): number;
  close(): Promise<void>;
}

export interface NotificationListenerOptions {
  channels: readonly string[];
  connectTimeoutSeconds: number;
  logger: Logger;
}

export function startNotificationListener(connectionString: string, options: NotificationListenerOptions): NotificationListener {
  const { logger } = options;
  const handlers = new Map<string, Map<string | null, Set<NotificationHandler>>>();
  const connectedHandlers = new Set<() => void>();
  const closing = new AbortController();

  const dispatch = (channel: string, payload: string) => {
    const byPayload = handlers.get(channel);
    for (const key of [payload, null]) {
      for (const handler of byPayload?.get(key) ?? []) {
        try {
          handler(payload);
        } catch (error) {
          logger.warn({ err: error, channel }, "notification handler failed");
        }
      }
    }
  };

  /** Connects and listens; resolves when that connection ends (error or close). */
  const session = async (): Promise<void> => {
    const connection = new pg.Client({ connectionString, application_name: "caption-listen", keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: options.connectTimeoutSeconds * 1000 });
    const ended = new Promise<void>((resolve) => {
      connection.on("error", (error) => {
        logger.warn({ cause: error.message }, "notification listener: database connection lost");
        resolve();
      });
      connection.on("end", () => resolve());
    });
    connection.on("notification", (message) => dispatch(message.channel, message.payload ?? ""));
    const endOnClose = () => void connection.end().catch(() => undefined);
    closing.signal.addEventListener("abort", endOnClose, { once: true });
    try {
      await connection.connect();
      for (const channel of options.channels) await connection.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      for (const handler of connectedHandlers) handler();
      await ended;
    } finally {
      closing.signal.removeEventListener("abort", endOnClose);
      await connection.end().catch(() => undefined);
    }
  };

  const run = async () => {
    let failures = 0;
    while (!closing.signal.aborted) {
      try {
        await session();
        failures = 0;
      } catch (error) {
        failures++;
        if (failures === 1) logger.warn({ cause: errorText(error) }, "notification listener: database unavailable; retrying");
      }
      if (closing.signal.aborted) break;
      await delay(retryDelayMs(failures), undefined, { signal: closing.signal }).catch(() => undefined);
    }
  };
  const running = run();

  return {
    subscribe(channel, payload, handler) {
      let byPayload = handlers.get(channel);
      if (!byPayload) handlers.set(channel, (byPayload = new Map()));
      let set = byPayload.get(payload);
      if (!set) byPayload.set(payload, (set = new Set()));
      set.add(handler);
      return () => {
        set.delete(handler);
        if (set.size === 0) byPayload.delete(payload);
        if (byPayload.size === 0) handlers.delete(channel);
      };
    },
    onConnected(handler) {
      connectedHandlers.add(handler);
      return () => connectedHandlers.delete(handler);
    },
    subscriptions() {
      let count = connectedHandlers.size;
      for (const byPayload of handlers.values()) for (const set of byPayload.values()) count += set.size;
      return count;
    },
    async close() {
      closing.abort();
      await running;
    },
  };
}
