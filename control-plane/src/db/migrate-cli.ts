// `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database).
import type { Kysely } from "kysely";
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { createDatabase } from "@caption/shared/db/database";
import { migrateToLatest } from "@caption/shared/db/migrator";
import { locateDatabase } from "./connect.ts";

const logger = pino({ level: "info" }, pino.destination(2));
const location = await locateDatabase(parseEnv(), logger);
const db = createDatabase(location.url, { max: 1, applicationName: "caption-migrate" });
try {
  const { results = [] } = await migrateToLatest(db as unknown as Kysely<unknown>);
  logger.info({ applied: results.map((r) => r.migrationName) }, "migrations applied");
} finally {
  await db.destroy();
  await location.stop();
}
