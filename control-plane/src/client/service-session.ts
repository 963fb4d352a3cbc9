// Where a caption run sends its work: the service CAPTION_API_URL names, the `npm start` service already running on
// DATA_DIR (joined), or the embedded service started for this run alone and stopped after it.
import path from "node:path";
import { embeddedPostgresOwner } from "../db/embedded-postgres.ts";
import { startEmbeddedService } from "../runtime/embedded-service.ts";
import { findAdvertisedService, loopbackOrigin, serviceConfirms } from "../runtime/service-advert.ts";
import { newToken } from "../services/service-identity.ts";
import { CaptionApiError, captionApi, type CaptionApi } from "./api-client.ts";
import { localKey } from "./local-key-file.ts";

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
  /** --new-key: make a new local account and key instead of the saved one. */
  newKey?: boolean;
  /** Told before the embedded service starts (it takes a few seconds). */
  onStarting?: () => void;
  /** Told why DATA_DIR/service.json was not used. */
  onNote?: (message: string) => void;
}

export async function openServiceSession(options: SessionOptions): Promise<ServiceSession> {
  if (options.apiUrl || options.apiKey) {
    if (!options.apiUrl || !options.apiKey) throw new CaptionApiError("CONFIGURATION", "set both CAPTION_API_URL and CAPTION_API_KEY, or neither (to run the embedded service)");
    if (options.newKey) throw new CaptionApiError("CONFIGURATION", "--new-key makes a local key; with CAPTION_API_URL and CAPTION_API_KEY the key is yours to give");
    return { api: captionApi(options.apiUrl, options.apiKey), mode: "remote", close: async () => {} };
  }
  const newKey = options.newKey === true;
  const found = await findAdvertisedService(options.dataDir);
  if (found.ignored !== undefined) options.onNote?.(`ignored: ${found.ignored}`);
  if (found.advert !== undefined) {
    const local = await localKey(options.dataDir, found.advert.url, { databaseUrl: options.databaseUrl || undefined, newKey });
    return { api: captionApi(found.advert.url, local.api_key), mode: "joined", accountId: local.account_id, close: async () => {} };
  }
  await refuseBusyDataDir(options.dataDir);
  options.onStarting?.();
  const nonce = newToken();
  const service = await startEmbeddedService({
    entry: "embedded",
    dataDir: options.dataDir,
    args: ["--attached"],
    // V8's code cache for the service's modules: a start after the first loads them in about half the time.
    env: { NODE_COMPILE_CACHE: path.join(options.dataDir, "compile-cache"), SERVICE_NONCE: nonce },
    // Ctrl-C is the command's to handle (it cancels the job first); the service stops when told.
    detached: true,
  });
  try {
    // The URL comes from the service's log under DATA_DIR: the key goes there only once the service proves it is this run's.
    const url = loopbackOrigin(service.url);
    if (url === null || !(await serviceConfirms(url, nonce))) {
      throw new CaptionApiError("SERVICE_UNREACHABLE", `the service started for this command did not confirm itself at ${service.url}; see ${service.logFile}`);
    }
    const local = await localKey(options.dataDir, url, { databaseUrl: service.databaseUrl, newKey });
    return {
      api: captionApi(url, local.api_key),
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
