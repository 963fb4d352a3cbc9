import path from "node:path";
import { readOwnerOnlyFile, replaceOwnerOnlyFile } from "../runtime/owner-only-file.ts";
import { CaptionApiError } from "./api-client.ts";
import type { LocalKey } from "./local-key.ts";

/** In DATA_DIR, this user's alone: the key every caption command on that data directory shares. */
export const KEY_FILE = "caption-command.json";

export interface LocalKeyOptions {
  /** DATABASE_URL of a joined `npm start` that uses one (to make the key). */
  databaseUrl?: string | undefined;
  /** Make a new account and key (--new-key), replacing the saved one. */
  newKey: boolean;
}

/**
 * The key this data directory's caption commands share (DATA_DIR/caption-command.json, 0600), made on the first
 * run, or when asked (--new-key). A saved key the service refuses (401: revoked, or a database made afresh) is an
 * error that says so: a new account is never made unasked. A file there that is not this user's alone, or not
 * a key, is an error too, never replaced.
 */
export async function localKey(dataDir: string, url: string, options: LocalKeyOptions): Promise<LocalKey> {
  const file = path.join(dataDir, KEY_FILE);
  if (!options.newKey) {
    const read = await readOwnerOnlyFile(file);
    if (read !== null) {
      const saved = "text" in read ? parseLocalKey(read.text) : null;
      if (saved === null) {
        const why = "refused" in read ? read.refused : "does not hold a local key";
        throw new CaptionApiError("LOCAL_KEY_UNUSABLE", `${file} ${why}: remove it (the next run makes a new local key), or run with --new-key`);
      }
      const answer = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${saved.api_key}` } });
      await answer.body?.cancel();
      if (answer.status !== 401) return saved;
      throw new CaptionApiError(
        "LOCAL_KEY_REFUSED",
        `the service at ${url} refused the local key saved in ${file} (401: the key was revoked, or the database was made afresh); ` +
          "run again with --new-key to make a new local account and key, or set CAPTION_API_URL and CAPTION_API_KEY",
        401,
      );
    }
  }
  // Only a first run (or --new-key) needs the database's client libraries: loaded then, not every time.
  const { createLocalKey } = await import("./local-key.ts");
  const local = await createLocalKey(dataDir, options.databaseUrl);
  await replaceOwnerOnlyFile(file, JSON.stringify(local));
  return local;
}

function parseLocalKey(text: string): LocalKey | null {
  try {
    const value = JSON.parse(text) as Partial<LocalKey>;
    return typeof value.api_key === "string" && typeof value.account_id === "string" ? { api_key: value.api_key, account_id: value.account_id } : null;
  } catch {
    return null;
  }
}
