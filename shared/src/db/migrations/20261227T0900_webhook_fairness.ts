import { sql, type Kysely } from "kysely";

// Webhook fairness (issue 24). An endpoint has at most one delivery handed to the queue at a time
// (the relay hands over the oldest due one when the last settles or waits for its retry), and an
// endpoint that has failed every attempt for 3 days (20 attempts or more) is disabled: the trigger
// queues nothing for it until its owner enables it again. An endpoint's own events
// (webhook_endpoint.disabled) are deliveries too, with no job: their body is fixed when queued.

/** The jobs_record_event trigger function of 20261216T0900, queueing deliveries for the endpoints `endpointFilter` leaves. */
const recordEvent = (endpointFilter: string) =>
  sql.raw(`
    CREATE OR REPLACE FUNCTION jobs_record_event() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
          WHERE e.account_id = NEW.account_id AND webhook_type = ANY (e.events) ${endpointFilter};
        IF FOUND THEN
          PERFORM pg_notify('caption_webhooks', '');
        END IF;
      END IF;
      RETURN NULL;
    END
    $fn$;
`);

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE webhook_endpoints
      ADD COLUMN disabled_at timestamptz,
      ADD COLUMN disabled_reason text,
      -- The first attempt of the current run of failures; null after a success.
      ADD COLUMN failing_since timestamptz,
      ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;

    ALTER TABLE webhook_deliveries
      ALTER COLUMN job_event_id DROP NOT NULL,
      ALTER COLUMN job_id DROP NOT NULL,
      DROP CONSTRAINT webhook_deliveries_type_check,
      ADD CONSTRAINT webhook_deliveries_type_check
        CHECK (type IN ('job.completed', 'job.failed', 'job.canceled', 'job.progress', 'webhook_endpoint.disabled')),
      ADD CONSTRAINT webhook_deliveries_job_or_payload CHECK (job_event_id IS NOT NULL OR payload IS NOT NULL),
      -- Sends that failed inside the service before any attempt was made (retried within the 24 h window, then given up).
      ADD COLUMN internal_failures integer NOT NULL DEFAULT 0;
    -- The relay's look for each endpoint's oldest pending delivery, and for the endpoints already busy.
    CREATE INDEX webhook_deliveries_endpoint_pending ON webhook_deliveries (endpoint_id, id) WHERE state = 'pending';

    ${recordEvent("AND e.disabled_at IS NULL")}
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ${recordEvent("")}
    DELETE FROM webhook_deliveries WHERE job_event_id IS NULL;
    DROP INDEX webhook_deliveries_endpoint_pending;
    ALTER TABLE webhook_deliveries
      DROP COLUMN internal_failures,
      DROP CONSTRAINT webhook_deliveries_job_or_payload,
      DROP CONSTRAINT webhook_deliveries_type_check,
      ADD CONSTRAINT webhook_deliveries_type_check CHECK (type IN ('job.completed', 'job.failed', 'job.canceled', 'job.progress')),
      ALTER COLUMN job_event_id SET NOT NULL,
      ALTER COLUMN job_id SET NOT NULL;
    ALTER TABLE webhook_endpoints DROP COLUMN disabled_at, DROP COLUMN disabled_reason, DROP COLUMN failing_since, DROP COLUMN consecutive_failures;
  `.execute(db);
}
