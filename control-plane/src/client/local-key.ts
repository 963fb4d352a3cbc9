import { createDatabase } from "@caption/shared/db/database";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { startEmbeddedPostgres } from "../db/embedded-postgres.ts";
import { createKey } from "../services/account-admin.ts";

/** The local account's first grant: ten hours of video; `npm run admin -- credits:grant` adds more. */
export const LOCAL_CREDITS_SECONDS = 36_000;

/** The key every caption command on a data directory shares, and its account. */
export interface LocalKey {
  api_key: string;
  account_id: string;
}

/** A key (and its account, with LOCAL_CREDITS_SECONDS) made in the database of DATA_DIR's service, as `npm run admin` makes one. */
export async function createLocalKey(dataDir: string, databaseUrl?: string): Promise<LocalKey> {
  const url = databaseUrl ?? (await startEmbeddedPostgres(dataDir, createCliLogger("warn"))).url;
  const db = createDatabase(url, { max: 1, applicationName: "caption-command" });
  try {
    const created = await createKey(db, { name: "caption command (local)", scopes: ["subtitles:write"], credits: LOCAL_CREDITS_SECONDS });
    return { api_key: created.api_key, account_id: created.account_id };
  } finally {
    await db.destroy();
  }
}
