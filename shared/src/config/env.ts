import { Type, type Static, type TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { LiteralUnion } from "../api/style.ts";

/** Every environment variable the service reads, parsed once at start-up. */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: "0.0.0.0" }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: "^postgres(ql)?://" })),
  /** How long `npm run api`, `npm run worker`, `npm start` and `npm run migrate` wait for the database at start-up before giving up. */
  DATABASE_STARTUP_TIMEOUT_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400, default: 300 }),
  /** Bounds opening a connection and waiting for a free pooled one. */
  DATABASE_CONNECT_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 300, default: 5 }),
  /** Server-side `statement_timeout` of the API's and the workers' queries; 0 disables it. */
  DATABASE_STATEMENT_TIMEOUT_SECONDS: Type.Integer({ minimum: 0, maximum: 3600, default: 30 }),
  DATA_DIR: Type.String({ default: "./.data" }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  /** Honour X-Forwarded-Proto/Host/For: only behind a proxy that sets them (and strips a client's own). */
  TRUST_PROXY: LiteralUnion(["true", "false"] as const, { default: "false" }),
  STORAGE_URL: Type.Optional(Type.String({ pattern: "^(file|s3)://" })),
  // The standard AWS variables for S3 storage; credentials (AWS_ACCESS_KEY_ID, …, IRSA) are left to the SDK's own chain.
  AWS_ENDPOINT_URL_S3: Type.Optional(Type.String({ pattern: "^https?://" })),
  AWS_ENDPOINT_URL: Type.Optional(Type.String({ pattern: "^https?://" })),
  AWS_REGION: Type.Optional(Type.String({ minLength: 1 })),
  URL_SIGNING_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  ASR_ENGINE: LiteralUnion(["auto", "sherpa-onnx", "pocketsphinx"] as const, { default: "auto" }),
  ASR_MODEL_DIR: Type.Optional(Type.String()),
  /** `models:download` fetches each release file from `<this>/<file name>` instead of upstream (same pins); for hosts without GitHub access. */
  ASR_MODEL_MIRROR: Type.Optional(Type.String({ pattern: "^https?://[^?#]+$" })),
  ASR_PROVIDER: LiteralUnion(["cpu", "cuda"] as const, { default: "cpu" }),
  WORKER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
  FFMPEG_PATH: Type.String({ default: "ffmpeg" }),
  FFPROBE_PATH: Type.String({ default: "ffprobe" }),
  ALLOW_PRIVATE_VIDEO_URLS: LiteralUnion(["true", "false"] as const, { default: "false", description: "tests only" }),
  // Live progress and webhooks (the API processes send them).
  SSE_HEARTBEAT_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 300, default: 15, description: "comment line on idle event streams" }),
  WEBHOOK_TIMEOUT_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 60, default: 10, description: "one delivery attempt, DNS to response" }),
  WEBHOOK_RETRY_BASE_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 10, description: "first retry delay; each next one 4x, at most 12 h" }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "attempts one API process sends at once" }),
  // Previews (POST /v1/previews): their own per-key rate, and how long a request waits for a worker's picture.
  PREVIEW_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 100_000, default: 60, description: "previews per API key and minute, beside the key's general rate" }),
  PREVIEW_STILL_DEADLINE_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 60, default: 2, description: "a PNG or WebP preview not drawn by then is 503" }),
  PREVIEW_CLIP_DEADLINE_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 120, default: 10, description: "an MP4 preview not drawn by then is 503" }),
  // What an account's uploads may keep in storage at once: finished ones until they are deleted (24 h after
  // completion) and unfinished ones by their declared size (docs/api.md, Uploads).
  UPLOAD_QUOTA_BYTES: Type.Integer({ minimum: 1, default: 10 * 1024 ** 3, description: "bytes of uploads one account keeps at once" }),
  UPLOAD_QUOTA_COUNT: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 200, description: "uploads one account keeps at once" }),
  // Set by the caption command for the service it starts: /readyz proves the service holds it. `npm start` makes its own.
  SERVICE_NONCE: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_-]{43}$" })),
  LOG_LEVEL: LiteralUnion(["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const, { default: "info" }),
  SHUTDOWN_GRACE_SECONDS: Type.Integer({ minimum: 0, maximum: 3600, default: 60 }),
  // How soon a job whose worker died is retried (docs/jobs.md "Job lifecycle"); the same values for the API
  // (which queues jobs with them) and the workers (which refresh and supervise at a sixth of the heartbeat).
  JOB_HEARTBEAT_SECONDS: Type.Integer({ minimum: 10, maximum: 600, default: 30, description: "a running job whose worker stops refreshing this long is retried" }),
  JOB_RETRY_DELAY_SECONDS: Type.Integer({ minimum: 0, maximum: 600, default: 5, description: "the first retry's delay, doubling after" }),
  // How long a job may hold a worker (docs/security.md): the download, each ffprobe run on the
  // source, and transcription + render together (base + factor × the billed duration).
  DOWNLOAD_TIMEOUT_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 3600, default: 180 }),
  DOWNLOAD_MIN_BYTES_PER_SECOND: Type.Integer({ minimum: 0, default: 65_536, description: "0: no minimum" }),
  DOWNLOAD_THROUGHPUT_WINDOW_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 600, default: 20 }),
  PROBE_TIMEOUT_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 300, default: 15 }),
  PROCESSING_DEADLINE_BASE_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 86_400, default: 60 }),
  PROCESSING_DEADLINE_FACTOR: Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 0.8, description: "seconds per second of video" }),
  // Telemetry. OTLP export only when the endpoint is set; the OTLP exporters also read the other
  // standard OTEL_EXPORTER_OTLP_* variables, and OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES name the resource.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: "^https?://" })),
  OTEL_TRACES_SAMPLER: LiteralUnion(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"] as const, { default: "parentbased_always_on" }),
  OTEL_TRACES_SAMPLER_ARG: Type.Number({ minimum: 0, maximum: 1, default: 1 }),
  OTEL_METRIC_EXPORT_INTERVAL: Type.Integer({ minimum: 1000, default: 60_000, description: "milliseconds" }),
  /** The Prometheus listener (`GET /metrics`) of the API and of a standalone worker, never on PORT; 0 disables it. */
  METRICS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9464 }),
  /** Where that listener binds: loopback unless told otherwise (a pod whose Prometheus scrapes its address says 0.0.0.0). */
  METRICS_HOST: Type.String({ minLength: 1, default: "127.0.0.1" }),
});
export type RawEnv = Static<typeof EnvSchema>;
type Flag = "ALLOW_PRIVATE_VIDEO_URLS" | "TRUST_PROXY";
export type Env = Omit<RawEnv, Flag> & Record<Flag, boolean>;

export class EnvError extends Error {
  override name = "EnvError";
}

/** Parses the environment; a bad or misspelled value stops start-up with a message naming it. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env, schema: TObject = EnvSchema): Env {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = source[key];
    if (value !== undefined && value !== "") picked[key] = value;
  }
  const withDefaults = Value.Default(schema, Value.Convert(schema, picked));
  const errors = [...Value.Errors(schema, withDefaults)];
  if (errors.length > 0) {
    const lines = errors.map((e) => `${e.path.slice(1)}=${JSON.stringify(source[e.path.slice(1)])}: ${e.message}`);
    throw new EnvError(`invalid environment:\n  ${[...new Set(lines)].join("\n  ")}`);
  }
  const raw = withDefaults as RawEnv;
  return { ...raw, ALLOW_PRIVATE_VIDEO_URLS: raw.ALLOW_PRIVATE_VIDEO_URLS === "true", TRUST_PROXY: raw.TRUST_PROXY === "true" };
}
