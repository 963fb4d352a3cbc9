import { CompiledQuery, Kysely, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import type { Env } from "../config/env.ts";
import type { Database } from "./tables.ts";

// bigint/numeric come back as strings by default; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Db = Kysely<Database>;
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

export interface ConnectionOptions {
  max?: number;
  applicationName?: string;
  /** Told about every connection that breaks (database restart, failover, network), idle or checked out. */
  onConnectionLost?: (error: Error) => void;
  /** Bounds connecting and waiting for a free pooled connection, so no caller hangs on a database that is not there. */
  connectTimeoutSeconds?: number;
  /** Server-side `statement_timeout`; 0 or absent: none. */
  statementTimeoutSeconds?: number;
}

export function connectionOptionsFromEnv(env: Pick<Env, "DATABASE_CONNECT_TIMEOUT_SECONDS" | "DATABASE_STATEMENT_TIMEOUT_SECONDS">): ConnectionOptions {
  return { connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS, statementTimeoutSeconds: env.DATABASE_STATEMENT_TIMEOUT_SECONDS };
}

/**
 * A client that can never crash the process with an unhandled 'error' event. pg-pool listens for
 * errors only while a client sits idle in the pool and removes that listener while it is checked
 * out (a Kysely transaction, a pg-boss transaction); a connection that breaks then — `pg_ctl restart`
 * terminating it, a reset socket — emits 'error' with no listener. This listener lives as long as the
 * client: the error still fails the client's queries, and the pool drops the client on release.
 */
function clientClass(onConnectionLost: (error: Error) => void): typeof pg.Client {
  return class ReportingClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on("error", onConnectionLost);
    }
  };
}

/**
 * pg.Pool settings shared by every pool of ours, including pg-boss's (pg-boss hands its constructor
 * options to pg.Pool, which takes its client class from `Client`).
 */
export function poolConfig(connectionString: string, options: ConnectionOptions = {}): pg.PoolConfig {
  return {
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "caption",
    connectionTimeoutMillis: (options.connectTimeoutSeconds ?? 5) * 1000,
    // Notices a peer that vanished without closing the socket (a failed-over host, a dropped route).
    keepAlive: true,
    ...(options.statementTimeoutSeconds ? { statement_timeout: options.statementTimeoutSeconds * 1000 } : {}),
    Client: clientClass(options.onConnectionLost ?? (() => undefined)),
  };
}

export function createDatabase(connectionString: string, options: ConnectionOptions = {}): Db {
  const pool = new pg.Pool(poolConfig(connectionString, options));
  // pg-pool also re-emits an idle client's error on the pool (the client's own listener has
  // reported it already); without a listener here that re-emission would be fatal.
  pool.on("error", () => undefined);
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
