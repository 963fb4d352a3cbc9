import type { DbOrTrx } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";

/** An upload's row, whoever's: the caller checks the account (a preview's background). */
export async function loadUpload(db: DbOrTrx, uploadId: string): Promise<UploadRow | undefined> {
  return db.selectFrom("uploads").selectAll().where("id", "=", uploadId).executeTakeFirst();
}
