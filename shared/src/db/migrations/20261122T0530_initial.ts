import { sql, type Kysely } from "kysely";

// Migrations never import application code: the schema here is frozen in time.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE accounts (
      id text PRIMARY KEY,
      name text NOT NULL,
      concurrency_limit integer NOT NULL DEFAULT 4 CHECK (concurrency_limit >= 0),
      rate_limit_per_minute integer NOT NULL DEFAULT 1200 CHECK (rate_limit_per_minute > 0),
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      name text NOT NULL,
      prefix text NOT NULL UNIQUE,
      secret_hash text NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );

    CREATE TABLE jobs (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      status text NOT NULL CHECK (status IN ('queued','ingesting','transcribing','rendering','completed','failed','canceled')),
      progress real NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      video_url text NOT NULL,
      preset text NOT NULL,
      language text,
      style jsonb NOT NULL,
      max_duration_seconds integer NOT NULL CHECK (max_duration_seconds BETWEEN 1 AND 600),
      media jsonb,
      resolved_style jsonb,
      duration_seconds double precision,
      reserved_seconds integer NOT NULL DEFAULT 0 CHECK (reserved_seconds >= 0),
      billed_seconds integer NOT NULL DEFAULT 0 CHECK (billed_seconds >= 0),
      error_code text,
      error_message text,
      video_key text,
      srt_key text,
      transcript_key text,
      traceparent text,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz,
      files_deleted_at timestamptz,
      CHECK ((status = 'failed') = (error_code IS NOT NULL)),
      CHECK (status = 'completed' OR billed_seconds = 0)
    );
    CREATE INDEX jobs_account_created ON jobs (account_id, created_at DESC);
    CREATE INDEX jobs_active ON jobs (account_id) WHERE status IN ('queued','ingesting','transcribing','rendering');
    CREATE INDEX jobs_expiring ON jobs (expires_at) WHERE files_deleted_at IS NULL AND expires_at IS NOT NULL;

    CREATE TABLE idempotency_keys (
      account_id text NOT NULL REFERENCES accounts(id),
      key text NOT NULL,
      request_hash text NOT NULL,
      job_id text NOT NULL REFERENCES jobs(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, key)
    );
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

    CREATE TABLE credit_ledger (
      id bigserial PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      kind text NOT NULL CHECK (kind IN ('grant','reserve','release','charge')),
      seconds integer NOT NULL CHECK (seconds > 0),
      job_id text REFERENCES jobs(id),
      note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'grant') = (job_id IS NULL))
    );
    CREATE INDEX credit_ledger_account ON credit_ledger (account_id);
    -- One reservation per job, and at most one settlement (charge XOR release): a second
    -- charge, a second release, or a charge after a release is impossible by construction.
    CREATE UNIQUE INDEX credit_ledger_one_reserve ON credit_ledger (job_id) WHERE kind = 'reserve';
    CREATE UNIQUE INDEX credit_ledger_one_settlement ON credit_ledger (job_id) WHERE kind IN ('charge','release');

    -- Counters are disposable: unlogged keeps the per-request write off the WAL.
    CREATE UNLOGGED TABLE rate_limit_windows (
      api_key_id text NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (api_key_id, window_start)
    );

    CREATE TABLE workers (
      id text PRIMARY KEY,
      engine text NOT NULL,
      model text NOT NULL,
      languages text[] NOT NULL,
      detects_language boolean NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE workers, rate_limit_windows, credit_ledger, idempotency_keys, jobs, api_keys, accounts`.execute(db);
}
