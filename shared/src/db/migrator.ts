import { promises as fs } from "node:fs";
import path from "node:path";
import { FileMigrationProvider, Migrator, type MigrationResultSet } from "kysely/migration";
import type { Db } from "./database.ts";
import { SchemaNotMigrated } from "./database-errors.ts";

const MIGRATIONS_DIR = path.join(import.meta.dirname, "migrations");

function createMigrator(db: Db): Migrator {
  return new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }),
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });
}

export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const result = await createMigrator(db).migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return result;
}

/** True when every migration file has been applied (readiness check). */
export async function migrationsApplied(db: Db): Promise<boolean> {
  return (await pendingMigrations(db)).length === 0;
}

/** For a process that does not migrate (a worker): throws SchemaNotMigrated, which start-up waits out, until the API has migrated. */
export async function assertMigrated(db: Db): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) throw new SchemaNotMigrated(`the database schema is not migrated yet (${pending.length} migration(s) pending, from ${pending[0]}); the API, npm start or npm run migrate applies them`);
}

async function pendingMigrations(db: Db): Promise<string[]> {
  const migrations = await createMigrator(db).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
