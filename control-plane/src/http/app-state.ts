import type { Logger } from "pino";
import type { Principal } from "../services/authentication.ts";

/** What middleware puts on ctx.state for the handlers after it. */
export interface AppState {
  requestId: string;
  log: Logger;
  principal?: Principal;
  /** The query string validated against the route's `query.schema` (router.ts), numbers converted. */
  query?: unknown;
}
