import type { Context } from "koa";
import { invalidRequest } from "../services/service-error.ts";

/**
 * The externally visible base URL: configured, else derived from the request (X-Forwarded-* only with
 * TRUST_PROXY). A derived one that is no URL (`Host: a:99999`) is the client's error: 400.
 */
export function baseUrlOf(ctx: Context, configured: string | undefined): string {
  const base = (configured ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, "");
  if (configured === undefined && !URL.canParse(base)) throw invalidRequest("the Host header (or X-Forwarded-Host) is not a valid host[:port]");
  return base;
}
