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

/** A fresh, migrated database of its own for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const db = createDatabase(url.href, { max: 10, applicationName: "caption-test" });
  await migrateToLatest(db);
  return {
    url: url.href,
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
