// Where a caption run sends its work: the service CAPTION_API_URL names, the `npm start` service already running on
// DATA_DIR (joined), or the embedded service started for this run alone and stopped after it.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { embeddedPostgresOwner } from "../db/embedded-postgres.ts";
import { startEmbeddedService } from "../runtime/embedded-service.ts";
import { findAdvertisedService } from "../runtime/service-advert.ts";
import { CaptionApiError, captionApi, type CaptionApi } from "./api-client.ts";
import type { LocalKey } from "./local-key.ts";

/** In DATA_DIR, readable by its owner alone: the key every caption command on that data directory shares. */
const KEY_FILE = "caption-command.json";

export type SessionMode = "remote" | "joined" | "embedded";

export interface ServiceSession {
  api: CaptionApi;
  mode: SessionMode;
  /** The local account (not known for a remote service). */
  accountId?: string;
  /** Stops what this run started (the embedded service); nothing otherwise. */
  close(): Promise<void>;
}

export interface SessionOptions {
  apiUrl?: string | undefined;
  apiKey?: string | undefined;
  /** DATA_DIR, absolute. */
  dataDir: string;
  /** DATABASE_URL of a joined `npm start` that uses one (to make the local key). */
  databaseUrl?: string | undefined;
  /** Told before the embedded service starts (it takes a few seconds). */
  onStarting?: () => void;
}

export async function openServiceSession(options: SessionOptions): Promise<ServiceSession> {
  if (options.apiUrl || options.apiKey) {
    if (!options.apiUrl || !options.apiKey) throw new CaptionApiError("CONFIGURATION", "set both CAPTION_API_URL and CAPTION_API_KEY, or neither (to run the embedded service)");
    return { api: captionApi(options.apiUrl, options.apiKey), mode: "remote", close: async () => {} };
  }
  const advert = await findAdvertisedService(options.dataDir);
  if (advert !== null && (await ready(advert.url))) {
    const local = await localKey(options.dataDir, advert.url, options.databaseUrl || undefined);
    return { api: captionApi(advert.url, local.api_key), mode: "joined", accountId: local.account_id, close: async () => {} };
  }
  await refuseBusyDataDir(options.dataDir);
  options.onStarting?.();
  const service = await startEmbeddedService({
    entry: "embedded",
    dataDir: options.dataDir,
    args: ["--attached"],
    // V8's code cache for the service's modules: a start after the first loads them in about half the time.
    env: { NODE_COMPILE_CACHE: path.join(options.dataDir, "compile-cache") },
    // Ctrl-C is the command's to handle (it cancels the job first); the service stops when told.
    detached: true,
  });
  try {
    const local = await localKey(options.dataDir, service.url, service.databaseUrl);
    return {
      api: captionApi(service.url, local.api_key),
      mode: "embedded",
      accountId: local.account_id,
      close: async () => {
        await service.stop();
      },
    };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) })).ok;
  } catch {
    return false;
  }
}

/**
 * A PostgreSQL on DATA_DIR owned by a live process that advertises no API: another caption command's own service.
 * Starting a second service beside it would lose the database when the first one stops.
 */
async function refuseBusyDataDir(dataDir: string): Promise<void> {
  const owner = await embeddedPostgresOwner(dataDir);
  if (owner === null || owner === process.pid) return;
  throw new CaptionApiError(
    "DATA_DIR_BUSY",
    `DATA_DIR ${dataDir} is in use by process ${owner} (another caption command): wait for it, or run \`npm start\` once so that every caption command joins it`,
  );
}

/** The key this data directory's caption commands share (DATA_DIR/caption-command.json, 0600), made once. */
async function localKey(dataDir: string, url: string, databaseUrl?: string): Promise<LocalKey> {
  const file = path.join(dataDir, KEY_FILE);
  const saved = await readFile(file, "utf8").then((text) => JSON.parse(text) as LocalKey, () => null);
  if (saved !== null) {
    const answer = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${saved.api_key}` } });
    // A key revoked, or a database made afresh: make a new one.
    if (answer.status !== 401) return saved;
  }
  // Only a first run (or a database made afresh) needs the database's client libraries: loaded then, not every time.
  const { createLocalKey } = await import("./local-key.ts");
  const local = await createLocalKey(dataDir, databaseUrl);
  await writeFile(file, JSON.stringify(local), { mode: 0o600 });
  return local;
}
