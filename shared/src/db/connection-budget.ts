/**
 * The PostgreSQL connections each process opens at most, in one place: the pools are sized from here, and
 * `npm run plan` adds them up for a deployment (docs/operations.md "Planning capacity").
 */
export const CONNECTION_BUDGET = {
  /**
   * An API process: its pool (requests, the webhook relay), pg-boss's pool, its LISTEN connection (events,
   * webhooks), and the upload lock pool (one connection per upload whose lock a request of the process holds).
   */
  api: { pool: 20, queue: 4, listen: 1, uploadLocks: 64 },
  /** A worker: a pool that grows with the jobs it runs at once, pg-boss's pool and LISTEN connection, and its own LISTEN connection (cancels). */
  worker: { pool: (concurrency: number) => concurrency * 2 + 4, queue: 4, queueListen: 1, listen: 1 },
  /** `npm run migrate` (the chart's migration Job, and the API's own at start-up) and an admin command. */
  oneOff: { migrate: 1, admin: 2 },
} as const;

/** Connections one API process may hold. */
export const apiConnections = () => {
  const { pool, queue, listen, uploadLocks } = CONNECTION_BUDGET.api;
  return pool + queue + listen + uploadLocks;
};
/** Connections one worker running `concurrency` jobs at once may hold. */
export const workerConnections = (concurrency: number) => {
  const { pool, queue, queueListen, listen } = CONNECTION_BUDGET.worker;
  return pool(concurrency) + queue + queueListen + listen;
};
