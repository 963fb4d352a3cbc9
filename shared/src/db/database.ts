import { CompiledQuery, Kysely, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import type { Database } from "@caption/shared/db/tables";

// bigint/numeric come back as strings by default; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

export function createDatabase(connectionString: string, options: { max?: number; applicationName?: string; onIdleError?: (error: Error) => void } = {}): Db {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, application_name: options.applicationName ?? "caption" });
  // An idle client losing its connection (database restart, failover) must not crash the process;
  // the pool replaces it and the next query reports the outage.
  pool.on("error", options.onIdleError ?? (() => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Lets pg-boss run its SQL on our transaction's connection, so a job row and its queue entry commit together. */
export function pgBossAdapter(db: DbOrTrx): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } {
  return {
    async executeSql(text, values = []) {
      const result = await db.executeQuery(CompiledQuery.raw(text, values));
      return { rows: [...result.rows] };
    },
  };
}
