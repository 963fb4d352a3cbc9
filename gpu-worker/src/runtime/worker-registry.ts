import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { deleteWorker, touchWorker, upsertWorker } from "../db/worker-repository.ts";

const HEARTBEAT_MS = 30_000;

/**
 * Records this worker's engine, model and languages so the API can refuse a `language` no live
 * worker supports, and keeps `last_seen_at` fresh while the worker runs.
 */
export async function registerWorker(db: Db, workerId: string, engine: SpeechEngine, logger: Logger): Promise<{ unregister(): Promise<void> }> {
  await upsertWorker(db, workerId, { engine: engine.name, model: engine.model, languages: [...engine.languages], detects_language: engine.detectsLanguage });
  const timer = setInterval(() => {
    touchWorker(db, workerId).catch((error: unknown) => logger.warn({ err: error }, "worker heartbeat failed"));
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    async unregister() {
      clearInterval(timer);
      await deleteWorker(db, workerId);
    },
  };
}
