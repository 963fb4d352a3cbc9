import { sql } from "kysely";
import { PREVIEW_RESULTS_CHANNEL } from "@caption/shared/jobs/catalog";
import type { DbOrTrx } from "@caption/shared/db/database";

/** A drawn preview, or the API error it ends in (a refusal the API could not foresee, an internal error). */
export type PreviewOutcome = { contentType: string; body: Buffer } | { errorCode: string; errorMessage: string };

/** Hands a preview to the request waiting for it: its row, and a NOTIFY of its id sent when that commits. */
export async function recordPreviewResult(db: DbOrTrx, previewId: string, outcome: PreviewOutcome): Promise<void> {
  const row =
    "body" in outcome
      ? { id: previewId, content_type: outcome.contentType, body: outcome.body }
      : { id: previewId, error_code: outcome.errorCode, error_message: outcome.errorMessage };
  await sql`
    WITH saved AS (${db.insertInto("preview_results").values(row).onConflict((oc) => oc.column("id").doNothing()).returning("id")})
    SELECT pg_notify(${PREVIEW_RESULTS_CHANNEL}, id) FROM saved`.execute(db);
}
