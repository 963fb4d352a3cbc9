import { sql, type Kysely } from "kysely";

// The per-account concurrency limit, checked at COMMIT by a deferred constraint trigger: the account
// row is locked only for the count and the commit itself (one round trip), and every insert path is
// held to the limit. Each statement of the function takes a fresh snapshot after the lock is granted,
// so the count sees jobs committed by whoever held the lock before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION jobs_enforce_concurrency_limit() RETURNS trigger LANGUAGE plpgsql AS $fn$
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

    CREATE CONSTRAINT TRIGGER jobs_concurrency_limit AFTER INSERT ON jobs
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION jobs_enforce_concurrency_limit();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER jobs_concurrency_limit ON jobs; DROP FUNCTION jobs_enforce_concurrency_limit()`.execute(db);
}
