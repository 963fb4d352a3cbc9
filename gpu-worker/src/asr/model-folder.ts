import path from "node:path";
import type { Env } from "@caption/shared/config/env";

/** Where the worker's speech models live (and models:download installs them): ASR_MODEL_DIR, else DATA_DIR/models. */
export function modelFolder(env: Pick<Env, "ASR_MODEL_DIR" | "DATA_DIR">): string {
  return env.ASR_MODEL_DIR ?? path.resolve(env.DATA_DIR, "models");
}
