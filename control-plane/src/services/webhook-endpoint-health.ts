import { monotonicFactory } from "ulid";
import { DISABLE_AFTER_ATTEMPTS, DISABLE_AFTER_FAILING_MS, type WebhookEndpointEventPayload } from "@caption/shared/api/webhook";
import type { DbOrTrx } from "@caption/shared/db/database";
import type { WebhookEndpointRow } from "@caption/shared/db/tables";
import { disableEndpoint, queueEndpointEvent, recordEndpointOutcome } from "../db/webhook-endpoint-repository.ts";
import { presentEndpoint } from "./webhook-endpoint-presenter.ts";

const nextUlid = monotonicFactory();

/** Whether an endpoint's run of failures calls for disabling it: every attempt failed for 3 days, 20 of them at least. */
function shouldDisable(endpoint: Pick<WebhookEndpointRow, "failing_since" | "consecutive_failures" | "disabled_at">, at: Date): boolean {
  if (endpoint.disabled_at !== null || endpoint.failing_since === null) return false;
  return endpoint.consecutive_failures >= DISABLE_AFTER_ATTEMPTS && at.getTime() - new Date(endpoint.failing_since).getTime() >= DISABLE_AFTER_FAILING_MS;
}

/**
 * Counts an attempt toward its endpoint's health, on the attempt's transaction; disables the endpoint
 * when it has failed long enough (its pending deliveries given up) and queues webhook_endpoint.disabled
 * for the account's other endpoints. The disabled endpoint, when this attempt disabled it.
 */
export async function recordEndpointHealth(trx: DbOrTrx, endpointId: string, succeeded: boolean, at: Date): Promise<WebhookEndpointRow | undefined> {
  const endpoint = await recordEndpointOutcome(trx, endpointId, succeeded, at);
  if (!endpoint || !shouldDisable(endpoint, at)) return undefined;
  const since = new Date(endpoint.failing_since ?? at).toISOString();
  const reason = `every attempt failed since ${since} (${endpoint.consecutive_failures} attempts)`;
  const disabled = await disableEndpoint(trx, endpoint.id, at, reason);
  if (!disabled) return undefined;
  const body: WebhookEndpointEventPayload = { type: "webhook_endpoint.disabled", timestamp: at.toISOString(), data: presentEndpoint(disabled) };
  await queueEndpointEvent(trx, disabled, { id: `evt_${nextUlid()}`, type: body.type, at, payload: JSON.stringify(body) });
  return disabled;
}
