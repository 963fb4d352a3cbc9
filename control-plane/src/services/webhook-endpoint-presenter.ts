import type { WebhookEndpoint } from "@caption/shared/api/webhook";
import type { WebhookEndpointRow } from "@caption/shared/db/tables";

const iso = (at: Date | string | null) => (at === null ? null : new Date(at).toISOString());

/** An endpoint as the API shows it (never its secret). */
export function presentEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.disabled_at === null ? "enabled" : "disabled",
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    created_at: new Date(row.created_at).toISOString(),
  };
}
