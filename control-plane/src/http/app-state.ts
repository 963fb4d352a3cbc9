import type { Logger } from "pino";

export interface Principal {
  accountId: string;
  apiKeyId: string;
  scopes: readonly string[];
}

/** What middleware puts on ctx.state for the handlers after it. */
export interface AppState {
  requestId: string;
  log: Logger;
  principal?: Principal;
}
