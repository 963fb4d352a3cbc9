import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import pg from "pg";
import type { Database } from "../db/tables.ts";
import { createDatabase } from "../db/database.ts";
import { migrateToLatest } from "../db/migrator.ts";

export interface TestDatabase {
  url: string;
  db: Kysely<Database>;
  dispose(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_ADMIN_URL;
  if (!url) throw new Error("TEST_DATABASE_ADMIN_URL is not set: run tests with `npm test`, which starts PostgreSQL");
  return url;
}

/** Creates database `name` (a copy of `template` when given); its connection string. */
async function createEmptyDatabase(adminConnectionUrl: string, name: string, template?: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminConnectionUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ""}`).finally(() => admin.end());
  const url = new URL(adminConnectionUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** Names the migrated database that createTestDatabase copies, in the environment of the test files it starts. */
export const TEST_DATABASE_TEMPLATE_VARIABLE = "TEST_DATABASE_TEMPLATE";

/**
 * Creates and migrates `name`, for createTestDatabase to copy: the test runner makes one per run, so each test
 * file's database is a copy (CREATE DATABASE … TEMPLATE) rather than 16 migrations run again.
 */
export async function createTemplateDatabase(adminConnectionUrl: string, name: string): Promise<void> {
  const url = await createEmptyDatabase(adminConnectionUrl, name);
  // Closed before any copy: PostgreSQL copies a database only while nobody is connected to it.
  const db = createDatabase(url, { max: 1, applicationName: "caption-test-template" });
  await migrateToLatest(db).finally(() => db.destroy());
}

/** A fresh, migrated database of its own for one test file: a copy of the run's template, or migrated here without one. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  const template = process.env[TEST_DATABASE_TEMPLATE_VARIABLE];
  const url = await createEmptyDatabase(adminUrl(), name, template);
  const db = createDatabase(url, { max: 10, applicationName: "caption-test" });
  if (!template) await migrateToLatest(db);
  return {
    url,
    db,
    async dispose() {
      await db.destroy();
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
