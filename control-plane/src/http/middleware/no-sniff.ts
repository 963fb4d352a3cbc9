import type { Middleware } from "koa";

/** No response of ours is meant to be content-sniffed (downloads least of all). */
export function noSniff(): Middleware {
  return async (ctx, next) => {
    ctx.set("X-Content-Type-Options", "nosniff");
    await next();
  };
}
