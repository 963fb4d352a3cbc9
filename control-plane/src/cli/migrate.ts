// `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database).
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { createDatabase } from "@caption/shared/db/database";
import { waitForDatabase } from "@caption/shared/db/database-retry";
import { migrateToLatest } from "@caption/shared/db/migrator";
import { locateDatabase } from "../db/connect.ts";

const logger = pino({ level: "info" }, pino.destination(2));
const env = parseEnv();
const location = await locateDatabase(env, logger);
const db = createDatabase(location.url, { max: CONNECTION_BUDGET.oneOff.migrate, applicationName: "caption-migrate" });
try {
  // A migration job may start before its database (Helm's pre-install hook): wait as the API does.
  const { results = [] } = await waitForDatabase(() => migrateToLatest(db), { timeoutSeconds: env.DATABASE_STARTUP_TIMEOUT_SECONDS, logger });
  logger.info({ applied: results.map((r) => r.migrationName) }, "migrations applied");
} finally {
  await db.destroy();
  await location.stop();
}
