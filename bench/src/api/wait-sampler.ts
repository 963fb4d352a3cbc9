import pg from "pg";

export interface WaitSample {
  /** e.g. "CPU (running)", "Lock:transactionid", "IO:WALSync", "Client:ClientRead (idle in transaction)". */
  event: string;
  /** Average number of the service's sessions in that state while sampling. */
  averageSessions: number;
}

/**
 * Samples pg_stat_activity while a scenario runs: what the service's database sessions are doing
 * (on CPU, waiting on a lock, on a WAL flush, or idle in a transaction waiting for Node).
 */
export async function startWaitSampler(databaseUrl: string, intervalMs = 5): Promise<{ stop(): Promise<WaitSample[]> }> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "caption-bench-sampler" });
  await client.connect();
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ event: string }>(`
        SELECT CASE
          WHEN state = 'active' AND wait_event IS NULL THEN 'CPU (running)'
          WHEN state LIKE 'idle in transaction%' THEN 'Client:ClientRead (idle in transaction)'
          ELSE wait_event_type || ':' || wait_event END AS event
        FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'
          AND datname = current_database() AND application_name <> 'caption-bench'`);
      samples++;
      for (const { event } of rows) counts.set(event, (counts.get(event) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return [...counts]
        .map(([event, n]) => ({ event, averageSessions: Math.round((100 * n) / Math.max(1, samples)) / 100 }))
        .sort((a, b) => b.averageSessions - a.averageSessions);
    },
  };
}
