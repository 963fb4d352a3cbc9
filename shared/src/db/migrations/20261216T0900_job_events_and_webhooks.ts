import { sql, type Kysely } from "kysely";

// A job's history (job_events) and the webhook outbox (webhook_deliveries), both written by one
// trigger on jobs: every path that changes a job's status or progress — the worker's transitions, its
// dead-letter handling, the API's cancel, and whatever comes later — records the event and queues the
// deliveries in the same transaction as the change, so a process that dies after the commit loses
// nothing and a rolled-back change sends nothing. NOTIFY is transactional too: listeners (the SSE
// streams, the webhook relay) hear of an event only once it is committed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The origin the job was submitted to: the base of result links in webhook payloads when PUBLIC_BASE_URL is unset.
    ALTER TABLE jobs ADD COLUMN base_url text;

    CREATE TABLE job_events (
      id bigserial PRIMARY KEY,
      job_id text NOT NULL REFERENCES jobs(id),
      type text NOT NULL CHECK (type IN ('status', 'progress')),
      status text NOT NULL,
      progress real NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX job_events_job ON job_events (job_id, id);
    -- Progress steps are pruned after a week (status events stay as the history).
    CREATE INDEX job_events_progress_age ON job_events (created_at) WHERE type = 'progress';

    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      url text NOT NULL,
      events text[] NOT NULL CHECK (cardinality(events) > 0),
      -- Kept to sign deliveries (Standard Webhooks' whsec_ form); shown to the client once.
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id);

    CREATE TABLE webhook_deliveries (
      id bigserial PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      job_event_id bigint NOT NULL REFERENCES job_events(id) ON DELETE CASCADE,
      job_id text NOT NULL,
      -- webhook-id: one per event, the same on every retry and for every endpoint.
      event_id text NOT NULL,
      type text NOT NULL CHECK (type IN ('job.completed', 'job.failed', 'job.canceled', 'job.progress')),
      event_at timestamptz NOT NULL,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
      -- Handed to the queue (pg-boss) by the relay; until then the relay's sweep finds it.
      enqueued boolean NOT NULL DEFAULT false,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      -- The body, fixed at the first attempt: every retry sends the same bytes.
      payload text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (endpoint_id, job_event_id)
    );
    CREATE INDEX webhook_deliveries_to_enqueue ON webhook_deliveries (id) WHERE state = 'pending' AND NOT enqueued;
    CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);
    CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (created_at) WHERE state <> 'pending';

    CREATE TABLE webhook_attempts (
      delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      attempt integer NOT NULL CHECK (attempt > 0),
      attempted_at timestamptz NOT NULL,
      duration_ms integer NOT NULL,
      status_code integer,
      error text,
      PRIMARY KEY (delivery_id, attempt)
    );

    CREATE FUNCTION jobs_record_event() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      kind text;
      event bigint;
      webhook_type text;
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        kind := 'status';
      ELSIF NEW.progress IS DISTINCT FROM OLD.progress THEN
        kind := 'progress';
      ELSE
        RETURN NULL;
      END IF;
      INSERT INTO job_events (job_id, type, status, progress) VALUES (NEW.id, kind, NEW.status, NEW.progress) RETURNING id INTO event;
      PERFORM pg_notify('caption_job_events', NEW.id);

      -- Webhooks: the terminal states, and job.progress for the other moves of an existing job and
      -- for progress crossing a multiple of 10 % (the SSE stream has every step).
      IF TG_OP = 'INSERT' THEN
        webhook_type := NULL;
      ELSIF kind = 'status' AND NEW.status IN ('completed', 'failed', 'canceled') THEN
        webhook_type := 'job.' || NEW.status;
      ELSIF kind = 'status' OR floor(NEW.progress / 10) > floor(OLD.progress / 10) THEN
        webhook_type := 'job.progress';
      END IF;
      IF webhook_type IS NOT NULL THEN
        INSERT INTO webhook_deliveries (endpoint_id, job_event_id, job_id, event_id, type, event_at, next_attempt_at)
          SELECT e.id, event, NEW.id, 'evt_' || event, webhook_type, now(), now()
          FROM webhook_endpoints e
          WHERE e.account_id = NEW.account_id AND webhook_type = ANY (e.events);
        IF FOUND THEN
          PERFORM pg_notify('caption_webhooks', '');
        END IF;
      END IF;
      RETURN NULL;
    END
    $fn$;

    CREATE TRIGGER jobs_record_event AFTER INSERT OR UPDATE OF status, progress ON jobs
      FOR EACH ROW EXECUTE FUNCTION jobs_record_event();

    -- Jobs from before this migration start their history with their state now.
    INSERT INTO job_events (job_id, type, status, progress, created_at)
      SELECT id, 'status', status, progress, updated_at FROM jobs ORDER BY created_at, id;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER jobs_record_event ON jobs;
    DROP FUNCTION jobs_record_event();
    DROP TABLE webhook_attempts, webhook_deliveries, webhook_endpoints, job_events;
    ALTER TABLE jobs DROP COLUMN base_url;
  `.execute(db);
}
