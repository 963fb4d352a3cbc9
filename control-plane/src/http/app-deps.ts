import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import type { NotificationListener } from "@caption/shared/db/notification-listener";
import type { JobQueue } from "../queue/job-queue.ts";
import type { StreamLeases } from "../services/event-stream-leases.ts";
import type { LanguageSupport } from "../services/language-support.ts";
import type { PreviewLimits } from "../services/preview-service.ts";
import type { RateRefusals } from "../services/rate-refusals.ts";
import type { EndpointCheckOptions } from "../services/webhook-endpoint-service.ts";
import type { ResultLinks } from "../storage/result-links.ts";
import type { UrlSigner } from "../storage/signed-url.ts";
import type { EventStreams } from "./event-streams.ts";
import type { UploadStore } from "../storage/upload-store.ts";
import type { TusBridge } from "./tus-bridge.ts";
import type { InFlightLimit } from "./in-flight-limit.ts";
import type { UploadQuota } from "../services/upload-quota.ts";

export interface UploadRouteDeps {
  store: UploadStore;
  tus: TusBridge;
  /** What one account's uploads may keep at once. */
  quota: UploadQuota;
  /** An upload's requests in progress in this process (MAX_UPLOAD_REQUESTS_IN_FLIGHT). */
  inFlight: InFlightLimit;
}

export interface AppDeps {
  db: Db;
  queue: JobQueue;
  languages: LanguageSupport;
  /** Verifies the links of the local /v1/files route. */
  signer: UrlSigner;
  /** Download URLs in job responses: signed /v1/files links or presigned object-store URLs. */
  resultLinks: ResultLinks;
  logger: Logger;
  /** Root of local result storage served at /v1/files; absent when results live in object storage. */
  localFilesRoot?: string;
  /** Overrides the base URL derived from the request (behind proxies). */
  publicBaseUrl?: string;
  /** Honour X-Forwarded-Proto/Host/For (TRUST_PROXY): only behind a proxy that sets them. */
  trustProxy: boolean;
  /** This process's LISTEN connection: job event streams wait on it. */
  listener: NotificationListener;
  /** Open event streams, ended when the server stops. */
  eventStreams: EventStreams;
  /** The leases that cap open event streams per key across API processes. */
  streamLeases: StreamLeases;
  /** SSE_HEARTBEAT_SECONDS in milliseconds. */
  heartbeatMs: number;
  /**
   * How a webhook endpoint's URL is checked when it is registered, as the sender checks it: private addresses
   * only with ALLOW_PRIVATE_VIDEO_URLS (tests), each account's lookups capped, the name servers tests set.
   */
  webhookUrls: EndpointCheckOptions;
  /** Previews' own rate per key, and how long a request waits for a worker to draw one. */
  previewLimits: PreviewLimits;
  /** Upload storage and the tus server that writes to it. */
  uploads: UploadRouteDeps;
  /** The keys this process refuses from memory until their rate window ends. */
  rateRefusals: RateRefusals;
  /** A local service's nonce (npm start, or the one a caption command starts): /readyz proves it holds it. */
  identityNonce?: string;
  /** The clock of rate windows, link expiry and signing. */
  now: () => Date;
}
