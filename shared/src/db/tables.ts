import type { ColumnType, Generated, Insertable, Selectable } from "kysely";
import type { JobStatus } from "../api/job.ts";
import type { OutputKind } from "../api/output.ts";
import type { PresetId } from "../api/preset.ts";
import type { EditedWord } from "../api/render-request.ts";
import type { Scope } from "../api/scopes.ts";
import type { Style } from "../api/style.ts";
import type { WebhookDeliveryState, WebhookEventType } from "../api/webhook.ts";
import type { ProfanityMode, Replacements } from "../api/custom-words.ts";
import type { QualitySummary } from "../api/quality-report.ts";
import type { SubtitleProfileId } from "../api/subtitle-profile.ts";
import type { JobErrorCode } from "../errors/codes.ts";
import type { ResolvedStyle } from "../style/resolved-style.ts";

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
// jsonb: read back parsed, written as JSON text.
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface AccountsTable {
  id: string;
  name: string;
  concurrency_limit: Generated<number>;
  rate_limit_per_minute: Generated<number>;
  /** Unfinished jobs, kept by the jobs table's triggers at COMMIT (the concurrency limit checks it). */
  active_jobs: Generated<number>;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** Public part of the key, shown in listings and used for lookup. */
  prefix: string;
  /** SHA-256 (hex) of the whole key; the key itself is never stored. */
  secret_hash: string;
  scopes: Scope[];
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
}

/** `caption`: a submitted video, downloaded and transcribed. `render`: a completed job rendered again from its stored files. */
export type JobKind = "caption" | "render";

export interface JobsTable {
  id: string;
  account_id: string;
  kind: Generated<JobKind>;
  /** A render job's source: the completed job whose stored video (and, without `words`, transcript) it renders. */
  source_job_id: string | null;
  /** A render job's edited words, as the client sent them; null: the source transcript's words. */
  words: NullableJson<EditedWord[]>;
  status: JobStatus;
  progress: Generated<number>;
  /** A caption job's source is `video_url` or `upload_id`, never both; a render job's are its source's. */
  video_url: string | null;
  upload_id: ColumnType<string | null, string | null | undefined, string | null>;
  preset: PresetId;
  language: string | null;
  /** As the client sent it; the preset fills in the rest. */
  style: Json<Style>;
  max_duration_seconds: number;
  /** Filled by the worker after inspection: what ffprobe found (the worker's MediaInfo), and the style it renders with. */
  media: NullableJson<Record<string, unknown>>;
  resolved_style: NullableJson<ResolvedStyle>;
  duration_seconds: number | null;
  /** sha256 (hex) and size of the downloaded video at its first inspection; a retry must see the same bytes. */
  source_sha256: string | null;
  source_bytes: number | null;
  reserved_seconds: Generated<number>;
  billed_seconds: Generated<number>;
  error_code: JobErrorCode | null;
  error_message: string | null;
  video_key: string | null;
  srt_key: string | null;
  transcript_key: string | null;
  vtt_key: string | null;
  ass_key: string | null;
  /** The downloaded original, kept with the results so the job can be rendered again; null for jobs completed before that. */
  source_video_key: string | null;
  traceparent: string | null;
  attempts: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  files_deleted_at: NullableTimestamp;
  /** The origin the job was submitted to (base of result links in webhook payloads without PUBLIC_BASE_URL). */
  base_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The rules the subtitle files are laid out by. */
  subtitle_profile: Generated<SubtitleProfileId>;
  /** A caption job's custom terms, replacements and profanity mode, as submitted (null: none). */
  vocabulary: NullableJson<string[]>;
  replacements: NullableJson<Replacements>;
  profanity: Generated<ProfanityMode>;
  /** The stored quality report, and its summary, once completed. */
  quality_key: string | null;
  quality: NullableJson<QualitySummary>;
  /** Bytes of the completed job's stored files but its source video (bigint, read as a number). */
  stored_bytes: ColumnType<number | null, number | null | undefined, number | null>;
  /** What the job renders (burned, overlay, both); `video_key` is the uncaptioned video's for overlay alone. */
  output_kind: Generated<OutputKind>;
  poster_key: string | null;
  preview_strip_key: string | null;
  overlay_webm_key: string | null;
  overlay_mov_key: string | null;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  job_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export const LEDGER_KINDS = ["grant", "reserve", "release", "charge"] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export interface CreditLedgerTable {
  id: Generated<string>;
  account_id: string;
  kind: LedgerKind;
  seconds: number;
  job_id: string | null;
  note: string | null;
  created_at: Timestamp;
}

export interface RateLimitWindowsTable {
  api_key_id: string;
  window_start: Timestamp;
  count: number;
}

/** Requests per key and minute to POST /v1/previews, apart from the key's general limit. */
export interface PreviewRateWindowsTable {
  api_key_id: string;
  window_start: Timestamp;
  count: number;
}

/** A drawn preview (or why it could not be), kept only until the request that waits for it reads it. */
export interface PreviewResultsTable {
  id: string;
  content_type: string | null;
  body: Buffer | null;
  /** An API error code (the request was refused by the worker, e.g. a background file gone) and its message. */
  error_code: string | null;
  error_message: string | null;
  created_at: Generated<Date>;
}

export interface WorkersTable {
  id: string;
  engine: string;
  model: string;
  languages: string[];
  detects_language: boolean;
  started_at: Timestamp;
  last_seen_at: Timestamp;
}

export type JobEventType = "status" | "progress";

/** A job's history: one row per change of status or progress, written by the jobs_record_event trigger. */
export interface JobEventsTable {
  id: Generated<number>;
  job_id: string;
  type: JobEventType;
  status: JobStatus;
  progress: number;
  created_at: Timestamp;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  events: WebhookEventType[];
  /** Standard Webhooks signing secret (`whsec_…`). */
  secret: string;
  created_at: Timestamp;
  /** Set when deliveries stopped after days of failures (or null: enabled). */
  disabled_at: NullableTimestamp;
  disabled_reason: string | null;
  /** The first failed attempt of the current run of failures; null after a success. */
  failing_since: NullableTimestamp;
  consecutive_failures: Generated<number>;
}

/** The webhook outbox: one row per event and endpoint, queued by the jobs_record_event trigger. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  endpoint_id: string;
  /** Null for an endpoint's own event (webhook_endpoint.disabled), whose payload is fixed when queued. */
  job_event_id: number | null;
  job_id: string | null;
  event_id: string;
  type: WebhookEventType;
  event_at: Timestamp;
  state: Generated<WebhookDeliveryState>;
  enqueued: Generated<boolean>;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  payload: string | null;
  /** Sends that failed inside the service before an attempt was made. */
  internal_failures: Generated<number>;
  created_at: Generated<Date>;
}

export interface WebhookAttemptsTable {
  delivery_id: number;
  attempt: number;
  attempted_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** A file sent to the service (POST /v1/uploads); its bytes are in storage under `uploads/<id>`. */
export interface UploadsTable {
  id: string;
  account_id: string;
  /** The key that created it: the upload URL's requests count against this key's rate. */
  api_key_id: string;
  size_bytes: number;
  filename: string | null;
  created_at: Timestamp;
  /** The end of the upload URL; an upload unfinished by then is deleted. */
  expires_at: Timestamp;
  /** When the last byte was stored; a finished upload is deleted 24 h after. */
  completed_at: NullableTimestamp;
  deleted_at: NullableTimestamp;
}

/** One open job event stream, held by the API process serving it (renewed while it is open). */
export interface EventStreamLeasesTable {
  id: Generated<number>;
  api_key_id: string;
  expires_at: Timestamp;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  jobs: JobsTable;
  idempotency_keys: IdempotencyKeysTable;
  credit_ledger: CreditLedgerTable;
  rate_limit_windows: RateLimitWindowsTable;
  preview_rate_windows: PreviewRateWindowsTable;
  preview_results: PreviewResultsTable;
  workers: WorkersTable;
  job_events: JobEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  uploads: UploadsTable;
  event_stream_leases: EventStreamLeasesTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type JobRow = Selectable<JobsTable>;
export type UploadRow = Selectable<UploadsTable>;
export type NewJobRow = Insertable<JobsTable>;
export type LedgerRow = Selectable<CreditLedgerTable>;
export type JobEventRow = Selectable<JobEventsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
