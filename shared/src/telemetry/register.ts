// Preload for `node --import`: installs the ESM loader hook and the auto-instrumentations before
// any application module (koa, pg, http) is imported, so those imports are patched.
import { register } from "node:module";
import { createAddHookMessageChannel } from "import-in-the-middle";
import { enableAutoInstrumentations } from "./auto-instrumentations.ts";

const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);
enableAutoInstrumentations();
await waitForAllMessagesAcknowledged();
