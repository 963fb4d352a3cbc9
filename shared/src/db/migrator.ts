import { promises as fs } from "node:fs";
import path from "node:path";
import { FileMigrationProvider, Migrator, type MigrationResultSet } from "kysely/migration";
import type { Db } from "./database.ts";

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
  const migrations = await createMigrator(db).getMigrations();
  return migrations.every((m) => m.executedAt !== undefined);
}
