import { sql, type Kysely } from "kysely";

// Issue 34. An upload remembers the key that created it: its upload URL needs no key, and its requests
// count against that key's rate as the key's own requests do. Rows made before this are given their
// account's oldest key (every upload was created with one). The quota on the uploads an account keeps
// (finished ones until they are deleted, unfinished ones by declared size) reads them by account.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE uploads ADD COLUMN api_key_id text REFERENCES api_keys(id);
    UPDATE uploads u SET api_key_id = (SELECT k.id FROM api_keys k WHERE k.account_id = u.account_id ORDER BY k.created_at, k.id LIMIT 1);
    ALTER TABLE uploads ALTER COLUMN api_key_id SET NOT NULL;
    CREATE INDEX uploads_kept ON uploads (account_id) WHERE deleted_at IS NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX uploads_kept;
    ALTER TABLE uploads DROP COLUMN api_key_id;
  `.execute(db);
}
