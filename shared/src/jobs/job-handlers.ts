import type { JobWithMetadata, PgBoss, WorkOptions } from "pg-boss";
import type { Logger } from "pino";
import { Value } from "@sinclair/typebox/value";
import { JOB_CATALOGUE, type PayloadOf, type ProcessRole, type QueueName, type QueuesOf } from "./catalog.ts";

// How a process takes work from the catalogue's queues: it names a handler for every queue of its role
// (or does not start), and no handler ever sees an entry whose payload the catalogue's schema rejects.

/** Thrown at start-up when a role's handlers do not cover exactly the queues the catalogue gives it. */
export class MissingQueueHandler extends Error {
  constructor(role: ProcessRole, missing: string[], foreign: string[]) {
    const parts = [
      missing.length > 0 ? `no handler for queue ${missing.join(", ")}` : "",
      foreign.length > 0 ? `a handler for ${foreign.join(", ")}, which the catalogue gives another role` : "",
    ].filter(Boolean);
    super(`the ${role} role cannot start: ${parts.join("; ")} (shared/src/jobs/catalog.ts JOB_CATALOGUE)`);
    this.name = "MissingQueueHandler";
  }
}

/** Refuses (throws MissingQueueHandler) unless `handlers` names every queue of `role` and nothing else. */
export function assertRoleHandlers(role: ProcessRole, handlers: object): void {
  const own = (Object.keys(JOB_CATALOGUE) as QueueName[]).filter((queue) => JOB_CATALOGUE[queue].role === role);
  const given = Object.keys(handlers).filter((queue) => (handlers as Record<string, unknown>)[queue] !== undefined);
  const missing = own.filter((queue) => !given.includes(queue));
  const foreign = given.filter((queue) => !(own as string[]).includes(queue));
  if (missing.length > 0 || foreign.length > 0) throw new MissingQueueHandler(role, missing, foreign);
}

/** The catalogue's check of one queue's payloads: false (and an error line naming the entry and the first wrong field) when it does not match. */
export function payloadCheck<Q extends QueueName>(queue: Q, logger: Logger): (id: string, data: unknown) => data is PayloadOf<Q> {
  const schema = JOB_CATALOGUE[queue].payload;
  return (id, data): data is PayloadOf<Q> => {
    if (Value.Check(schema, data)) return true;
    const first = Value.Errors(schema, data).First();
    logger.error({ queue, queue_entry_id: id, field: first?.path || "/", problem: first?.message }, "queue entry's payload does not match the catalogue; failed without running its handler");
    return false;
  };
}

/** A queue worked with pg-boss's `work`: its options (concurrency, batch, polling) and the handler of each valid entry. */
export interface WorkHandler<P> {
  options?: Omit<WorkOptions, "includeMetadata">;
  handle(job: JobWithMetadata<P>): Promise<void>;
}
/** One handler per queue of the role, and no other queue: the type checker keeps the map complete. */
export type WorkHandlers<R extends ProcessRole> = { [Q in QueuesOf<R>]: WorkHandler<PayloadOf<Q>> };

/**
 * Starts `boss.work` on every queue of `role`, after checking that each has its handler (none is started
 * otherwise). Entries of a batch are handled one after the other; an entry whose payload the catalogue
 * rejects is failed in pg-boss (its retry policy and dead letter apply, each try failing the same way) and
 * never reaches the handler.
 */
export async function workQueues<R extends ProcessRole>(boss: Pick<PgBoss, "work" | "fail">, role: R, handlers: WorkHandlers<R>, logger: Logger): Promise<void> {
  assertRoleHandlers(role, handlers);
  for (const [queue, handler] of Object.entries(handlers) as [QueuesOf<R>, WorkHandler<unknown>][]) {
    const valid = payloadCheck(queue, logger);
    await boss.work(queue, { ...handler.options, includeMetadata: true }, async (jobs: JobWithMetadata<unknown>[]) => {
      const rejected = jobs.filter((job) => !valid(job.id, job.data));
      if (rejected.length > 0) await boss.fail(queue, rejected.map((job) => job.id), { message: "payload does not match the job catalogue" });
      for (const job of jobs) if (!rejected.includes(job)) await handler.handle(job);
    });
  }
}
