import type { Context } from "koa";

/** The externally visible base URL: configured, else derived from the request (X-Forwarded-* only with TRUST_PROXY). */
export const baseUrlOf = (ctx: Context, configured: string | undefined): string => (configured ?? `${ctx.protocol}://${ctx.host}`).replace(/\/+$/, "");
