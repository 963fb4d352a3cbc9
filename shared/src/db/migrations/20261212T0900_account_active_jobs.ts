import { sql, type Kysely } from "kysely";

// The per-account concurrency limit used to count the account's unfinished jobs at every submission's
// COMMIT: a cost that grew with the account's queue (a bulk submitter with thousands of queued jobs paid
// milliseconds of database time per request, under the account lock). The count is now kept on the
// account row by the same kind of deferred trigger: +1 when an unfinished job is inserted, −1 when one
// becomes terminal. Both run at COMMIT, so the account row is still locked only for that moment, and in
// the order the changes happened (an insert is counted before the update that ends it).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE accounts ADD COLUMN active_jobs integer NOT NULL DEFAULT 0 CHECK (active_jobs >= 0);
    UPDATE accounts a SET active_jobs = (
      SELECT count(*) FROM jobs j WHERE j.account_id = a.id AND j.status IN ('queued', 'ingesting', 'transcribing', 'rendering'));

    CREATE OR REPLACE FUNCTION jobs_enforce_concurrency_limit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      job_limit integer;
      active integer;
    BEGIN
      IF NEW.status NOT IN ('queued', 'ingesting', 'transcribing', 'rendering') THEN
        RETURN NULL;
      END IF;
      UPDATE accounts SET active_jobs = active_jobs + 1 WHERE id = NEW.account_id
        RETURNING active_jobs, concurrency_limit INTO active, job_limit;
      IF active > job_limit THEN
        RAISE EXCEPTION '% jobs are in progress; the limit is %', active - 1, job_limit USING ERRCODE = 'CL429';
      END IF;
      RETURN NULL;
    END
    $fn$;

    CREATE FUNCTION jobs_count_finished() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE accounts SET active_jobs = active_jobs - 1 WHERE id = NEW.account_id;
      RETURN NULL;
    END
    $fn$;

    CREATE CONSTRAINT TRIGGER jobs_finished AFTER UPDATE OF status ON jobs
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (OLD.status IN ('queued', 'ingesting', 'transcribing', 'rendering') AND NEW.status IN ('completed', 'failed', 'canceled'))
      EXECUTE FUNCTION jobs_count_finished();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER jobs_finished ON jobs;
    DROP FUNCTION jobs_count_finished();
    CREATE OR REPLACE FUNCTION jobs_enforce_concurrency_limit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      job_limit integer;
      active bigint;
    BEGIN
      SELECT concurrency_limit INTO job_limit FROM accounts WHERE id = NEW.account_id FOR NO KEY UPDATE;
      SELECT count(*) INTO active FROM jobs
        WHERE account_id = NEW.account_id AND status IN ('queued', 'ingesting', 'transcribing', 'rendering');
      IF active > job_limit THEN
        RAISE EXCEPTION '% jobs are in progress; the limit is %', active - 1, job_limit USING ERRCODE = 'CL429';
      END IF;
      RETURN NULL;
    END
    $fn$;
    ALTER TABLE accounts DROP COLUMN active_jobs;
  `.execute(db);
}
