import { randomBytes } from "node:crypto";
import { monotonicFactory } from "ulid";
import { DEFAULT_WEBHOOK_EVENTS, MAX_WEBHOOK_ENDPOINTS, RECENT_WEBHOOK_DELIVERIES, type WebhookDeliveryList, type WebhookEndpoint, type WebhookEndpointCreated, type WebhookEndpointRequest } from "@caption/shared/api/webhook";
import type { Db } from "@caption/shared/db/database";
import type { DnsOptions } from "@caption/shared/net/dns-resolve";
import { parseHttpsUrl, resolveTarget, UnsafeTargetError } from "@caption/shared/net/resolve-target";
import { recentDeliveries } from "../db/webhook-delivery-repository.ts";
import { countEndpoints, deleteEndpoint, enableEndpoint, findEndpoint, insertEndpoint, listEndpoints, lockAccountForEndpoints } from "../db/webhook-endpoint-repository.ts";
import type { LookupGate } from "./lookup-gate.ts";
import { invalidRequest, notFound } from "./service-error.ts";
import { presentEndpoint } from "./webhook-endpoint-presenter.ts";

const nextUlid = monotonicFactory();
const LOOKUP_TIMEOUT_MS = 5000;


/**
 * The SSRF policy of video URLs, applied when the endpoint is registered (and again at every
 * delivery, which connects only to the address it checked): HTTPS, and no private, loopback,
 * link-local or metadata address. A host that does not resolve now is accepted: its deliveries fail
 * and are retried until it does.
 */
async function checkEndpointUrl(raw: string, accountId: string, options: EndpointCheckOptions): Promise<void> {
  try {
    const url = parseHttpsUrl(raw, { label: "webhook URL" });
    if (url.username || url.password) throw invalidRequest("url must not contain credentials");
    const signal = AbortSignal.timeout(LOOKUP_TIMEOUT_MS);
    await resolveTarget(url, {
      label: "webhook URL",
      allowPrivateAddresses: options.allowPrivateAddresses,
      signal,
      ...(options.dns ? { dns: options.dns } : {}),
      gateLookup: (lookup) => options.lookupGate.run(accountId, signal, lookup),
    });
  } catch (error) {
    if (error instanceof UnsafeTargetError && error.kind !== "unresolvable") throw invalidRequest(`url: ${error.message}`);
    if (!(error instanceof UnsafeTargetError) && !(error instanceof DOMException)) throw error;
  }
}

export interface EndpointCheckOptions {
  allowPrivateAddresses: boolean;
  /** This process's cap on each account's name lookups in flight. */
  lookupGate: LookupGate;
  /** Tests only: the name servers to ask. */
  dns?: DnsOptions;
}

const tooMany = () => invalidRequest(`an account can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one first`);

/**
 * Registers an endpoint (at most MAX_WEBHOOK_ENDPOINTS per account) and returns its secret, this once.
 * The limit is checked before the URL's name is looked up (an account at its limit costs no lookup)
 * and again, under the account's lock, when the row is written (two racing requests).
 */
export async function createWebhookEndpoint(
  db: Db,
  accountId: string,
  request: WebhookEndpointRequest,
  options: EndpointCheckOptions & { now: () => Date },
): Promise<WebhookEndpointCreated> {
  if ((await countEndpoints(db, accountId)) >= MAX_WEBHOOK_ENDPOINTS) throw tooMany();
  await checkEndpointUrl(request.url, accountId, options);
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const row = await db.transaction().execute(async (trx) => {
    await lockAccountForEndpoints(trx, accountId);
    if ((await countEndpoints(trx, accountId)) >= MAX_WEBHOOK_ENDPOINTS) throw tooMany();
    const events = [...(request.events ?? DEFAULT_WEBHOOK_EVENTS)];
    return insertEndpoint(trx, { id: `we_${nextUlid()}`, account_id: accountId, url: request.url, events, secret, created_at: options.now() });
  });
  return { ...presentEndpoint(row), secret };
}

export async function listWebhookEndpoints(db: Db, accountId: string): Promise<{ webhook_endpoints: WebhookEndpoint[] }> {
  return { webhook_endpoints: (await listEndpoints(db, accountId)).map(presentEndpoint) };
}

/**
 * Enables an endpoint again (after it was disabled for failing), its run of failures forgotten: events
 * from now on are delivered; those of the disabled time are not. Enabling an enabled one only forgets its failures.
 */
export async function enableWebhookEndpoint(db: Db, accountId: string, id: string): Promise<WebhookEndpoint> {
  const row = await enableEndpoint(db, accountId, id);
  if (!row) throw notFound("webhook endpoint");
  return presentEndpoint(row);
}

export async function deleteWebhookEndpoint(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await deleteEndpoint(db, accountId, id))) throw notFound("webhook endpoint");
}

/** The endpoint's most recent deliveries, newest first, each with its attempts. */
export async function listWebhookDeliveries(db: Db, accountId: string, id: string): Promise<WebhookDeliveryList> {
  const endpoint = await findEndpoint(db, accountId, id);
  if (!endpoint) throw notFound("webhook endpoint");
  const rows = await recentDeliveries(db, endpoint.id, RECENT_WEBHOOK_DELIVERIES);
  return {
    deliveries: rows.map(({ delivery, attempts }) => ({
      id: `dlv_${delivery.id}`,
      event_id: delivery.event_id,
      type: delivery.type,
      job_id: delivery.job_id,
      status: delivery.state,
      next_attempt_at: delivery.state === "pending" && delivery.next_attempt_at ? new Date(delivery.next_attempt_at).toISOString() : null,
      created_at: new Date(delivery.created_at).toISOString(),
      attempts: attempts.map((a) => ({
        attempt: a.attempt,
        attempted_at: new Date(a.attempted_at).toISOString(),
        duration_ms: a.duration_ms,
        status_code: a.status_code,
        error: a.error,
      })),
    })),
  };
}
