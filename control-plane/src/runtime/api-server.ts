import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import path from "node:path";
import type { Logger } from "pino";
import { migrateToLatest } from "@caption/shared/db/migrator";
import type { Env } from "@caption/shared/config/env";
import { connectionOptionsFromEnv, createDatabase } from "@caption/shared/db/database";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { waitForDatabase } from "@caption/shared/db/database-retry";
import { metricsListenAt, startMetricsServer, type MetricsServer } from "@caption/shared/telemetry/metrics-server";
import { activeTelemetry } from "@caption/shared/telemetry/telemetry";
import { parseStorageUrl } from "@caption/shared/storage/storage-location";
import { startNotificationListener } from "@caption/shared/db/notification-listener";
import { createApp } from "../http/app.ts";
import { answerClientError } from "../http/client-error.ts";
import type { RouteSpec } from "../http/route-spec.ts";
import { createEventStreams } from "../http/event-streams.ts";
import { createStartupApp } from "../http/startup-app.ts";
import { startJobQueue, type JobQueue } from "../queue/job-queue.ts";
import { createStreamLeases } from "../services/event-stream-leases.ts";
import { createRateRefusals, type RateRefusalOptions } from "../services/rate-refusals.ts";
import type { DnsOptions } from "@caption/shared/net/dns-resolve";
import { createLanguageSupport } from "../services/language-support.ts";
import { createLookupGate } from "../services/lookup-gate.ts";
import { createResultLinks } from "../storage/create-result-links.ts";
import { createUrlSigner } from "../storage/signed-url.ts";
import { createUploadStore } from "../storage/upload-store.ts";
import { createUploadLocker } from "../db/upload-locker.ts";
import { createTusBridge } from "../http/tus-bridge.ts";
import { createInFlightLimit } from "../http/in-flight-limit.ts";
import { MAX_UPLOAD_REQUESTS_IN_FLIGHT } from "@caption/shared/api/upload";
import { JOB_EVENTS_CHANNEL, PREVIEW_RESULTS_CHANNEL, QUEUES, WEBHOOKS_CHANNEL } from "@caption/shared/jobs/catalog";
import { startMaintenance } from "../services/maintenance.ts";
import { startWebhookRelay } from "../services/webhook-relay.ts";
import { sendWebhookAttempt } from "../services/webhook-sender.ts";
import { observeQueue } from "../telemetry/queue-gauges.ts";

export interface ApiServer {
  url: string;
  server: Server;
  /** `GET /metrics` on its own listener (METRICS_PORT), when telemetry runs in this process. */
  metricsUrl: string | undefined;
  /** What open event streams hold in this process: streams, LISTEN subscriptions, stream leases. */
  eventStreamHoldings(): { streams: number; subscriptions: number; leases: number };
  stop(): Promise<void>;
}

export interface ApiServerOptions {
  /** Where Prometheus scrapes; default METRICS_PORT on METRICS_HOST, none when METRICS_PORT is 0. Tests pass port 0 for a free one. */
  metrics?: { port: number; host: string } | false;
  /** The clock of rate windows and result links; tests set their own. */
  now?: () => Date;
  /** How often the webhook relay looks for outbox rows a lost notification left behind (default 5 s). */
  webhookSweepMs?: number;
  /** How often the webhook relay looks for deliveries whose queue entry was lost (default 60 s). */
  webhookRequeueMs?: number;
  /** Tests and benchmarks only: the name servers webhook URLs are resolved with (default the system's). */
  dns?: DnsOptions;
  /** The endpoints served and published (default every route of the API); tests add declarations of their own. */
  routes?: readonly RouteSpec[];
  /** Tests only: how refusals of keys over their rate wait (default a second each, at most 256 at once). */
  rateRefusals?: RateRefusalOptions;
  /** The nonce /readyz proves this process holds, when a local client needs to know it is this process (service-identity.ts). */
  identityNonce?: string;
}

/** The signing key for result links: configured, else generated once and kept under DATA_DIR. */
export async function loadSigningSecret(env: Pick<Env, "URL_SIGNING_SECRET" | "DATA_DIR">): Promise<string> {
  if (env.URL_SIGNING_SECRET) return env.URL_SIGNING_SECRET;
  const file = path.resolve(env.DATA_DIR, "url-signing.key");
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  await mkdir(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  await writeFile(file, secret, { mode: 0o600, flag: "wx" }).catch(async () => undefined);
  return (await readFile(file, "utf8")).trim();
}

/**
 * Listens at once (liveness up, readiness and the API 503), waits for the database — migrating and
 * starting the queue producer with backoff, for up to DATABASE_STARTUP_TIMEOUT_SECONDS — then serves
 * the API. Resolves once it serves; rejects with DatabaseWaitTimeout when the database never came.
 * `stop` is idempotent.
 */
export async function startApiServer(env: Env, databaseUrl: string, logger: Logger, options: ApiServerOptions = {}): Promise<ApiServer> {
  const now = options.now ?? (() => new Date());
  const storage = parseStorageUrl(env);
  const signer = createUrlSigner(await loadSigningSecret(env));
  const resultLinks = createResultLinks(storage, signer, env, now);
  const connection = connectionOptionsFromEnv(env);
  const db = createDatabase(databaseUrl, { max: CONNECTION_BUDGET.api.pool, ...connection, onConnectionLost: (error) => logger.warn({ err: error }, "database connection lost") });

  const telemetry = activeTelemetry();
  // Metrics never share the public port (what an ingress exposes); bound first, so a taken port stops start-up.
  const metricsAt = options.metrics ?? metricsListenAt(env);
  let metrics: MetricsServer | undefined;
  if (telemetry && metricsAt) {
    metrics = await startMetricsServer(telemetry, metricsAt);
    logger.info({ url: metrics.url }, "metrics listening");
  }

  let handle = createStartupApp(logger, { trustProxy: env.TRUST_PROXY }).callback();
  const server = createServer((request, response) => void handle(request, response));
  server.on("clientError", answerClientError(logger));
  server.listen(env.PORT, env.HOST);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  const url = `http://${env.HOST === "0.0.0.0" ? "127.0.0.1" : env.HOST}:${port}`;
  logger.info({ url }, "API started; ready once the database answers");

  let queue: JobQueue;
  try {
    const wait = { timeoutSeconds: env.DATABASE_STARTUP_TIMEOUT_SECONDS, logger };
    await waitForDatabase(() => migrate(databaseUrl, env.DATABASE_CONNECT_TIMEOUT_SECONDS), wait);
    const timing = { heartbeatSeconds: env.JOB_HEARTBEAT_SECONDS, retryDelay: env.JOB_RETRY_DELAY_SECONDS };
    queue = await waitForDatabase(() => startJobQueue(databaseUrl, { connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS }, logger, timing), wait);
  } catch (error) {
    await closeServer(server);
    await metrics?.close();
    await db.destroy();
    throw error;
  }
  const uploadStore = createUploadStore(storage, env);
  const maintenance = startMaintenance(db, logger, now, { db, store: uploadStore, logger });
  const stopObservingQueue = telemetry ? observeQueue(db, logger) : () => undefined;
  // One LISTEN connection per process: event streams, the webhook relay and previews wait on it.
  const listener = startNotificationListener(databaseUrl, {
    channels: [JOB_EVENTS_CHANNEL, WEBHOOKS_CHANNEL, PREVIEW_RESULTS_CHANNEL],
    connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
    logger,
  });
  const sweeps = { sweepMs: options.webhookSweepMs ?? 5000, requeueMs: options.webhookRequeueMs };
  const relay = startWebhookRelay({ db, queue, logger, now, capacity: env.WEBHOOK_CONCURRENCY, ...sweeps });
  listener.subscribe(WEBHOOKS_CHANNEL, null, relay.wake);
  // Endpoint URLs are checked alike when registered (the API) and when posted to (the sender).
  const webhookUrls = { allowPrivateAddresses: env.ALLOW_PRIVATE_VIDEO_URLS, lookupGate: createLookupGate(), ...(options.dns ? { dns: options.dns } : {}) };
  const senderDeps = {
    db,
    resultLinks,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    fallbackBaseUrl: url,
    post: { timeoutMs: env.WEBHOOK_TIMEOUT_SECONDS * 1000, ...webhookUrls },
    retryBaseMs: env.WEBHOOK_RETRY_BASE_SECONDS * 1000,
    logger,
    now,
    onSettled: relay.wake,
  };
  await queue.work({ [QUEUES.webhookDelivery]: { concurrency: env.WEBHOOK_CONCURRENCY, handle: (attempt) => sendWebhookAttempt(senderDeps, attempt) } });
  const eventStreams = createEventStreams();
  const uploadLocker = createUploadLocker(databaseUrl);
  const tus = createTusBridge({ db, store: uploadStore, locker: uploadLocker, logger, now });
  const streamLeases = createStreamLeases(db, logger);
  const app = createApp({
    db,
    queue,
    signer,
    resultLinks,
    logger,
    languages: createLanguageSupport(db),
    localFilesRoot: storage.kind === "local" ? storage.root : undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    trustProxy: env.TRUST_PROXY,
    listener,
    eventStreams,
    streamLeases,
    rateRefusals: createRateRefusals(options.rateRefusals),
    heartbeatMs: env.SSE_HEARTBEAT_SECONDS * 1000,
    webhookUrls,
    uploads: {
      store: uploadStore,
      tus,
      quota: { bytes: env.UPLOAD_QUOTA_BYTES, count: env.UPLOAD_QUOTA_COUNT },
      inFlight: createInFlightLimit(MAX_UPLOAD_REQUESTS_IN_FLIGHT),
    },
    ...(options.identityNonce === undefined ? {} : { identityNonce: options.identityNonce }),
    previewLimits: {
      perMinute: env.PREVIEW_RATE_LIMIT_PER_MINUTE,
      stillMs: env.PREVIEW_STILL_DEADLINE_SECONDS * 1000,
      clipMs: env.PREVIEW_CLIP_DEADLINE_SECONDS * 1000,
    },
    now,
  }, options.routes);
  handle = app.callback();
  logger.info({ url }, "API listening");

  let stopping: Promise<void> | undefined;
  return {
    url,
    server,
    metricsUrl: metrics?.url,
    eventStreamHoldings: () => ({ streams: eventStreams.size(), subscriptions: listener.subscriptions(), leases: streamLeases.held() }),
    stop: () =>
      (stopping ??= (async () => {
        await metrics?.close();
        // Stop taking connections, then end the open event streams that would keep the close waiting.
        const closed = closeServer(server);
        eventStreams.endAll();
        await closed;
        await streamLeases.stop();
        maintenance.stop();
        await uploadLocker.close();
        stopObservingQueue();
        await relay.stop();
        await listener.close();
        await queue.stop();
        await db.destroy();
      })()),
  };
}

/** On a connection of its own, without the statement timeout of the API's queries: a migration may take longer. */
async function migrate(databaseUrl: string, connectTimeoutSeconds: number): Promise<void> {
  const db = createDatabase(databaseUrl, { max: CONNECTION_BUDGET.oneOff.migrate, applicationName: "caption-migrate", connectTimeoutSeconds });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
