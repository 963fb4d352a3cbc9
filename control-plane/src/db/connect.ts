import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Env } from "@caption/shared/config/env";
import { migrateToLatest } from "@caption/shared/db/migrator";
import { createDatabase, type Db } from "@caption/shared/db/database";
import { startEmbeddedPostgres } from "./embedded-postgres.ts";

export interface Connection {
  url: string;
  db: Db;
  close(): Promise<void>;
}

/** DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR (joined if already running). Migrated. */
export async function connectDatabase(env: Pick<Env, "DATABASE_URL" | "DATA_DIR">, logger: Logger): Promise<Connection> {
  const embedded = env.DATABASE_URL ? undefined : await startEmbeddedPostgres(env.DATA_DIR, logger);
  const url = env.DATABASE_URL ?? embedded?.url ?? "";
  const db = createDatabase(url, { max: 2, applicationName: "caption-admin" });
  await migrateToLatest(db as unknown as Kysely<unknown>);
  return {
    url,
    db,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}
