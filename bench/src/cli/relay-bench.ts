// `npm run bench:relay [-- options]`: how long one webhook relay hand-over takes (its reads: the shared lock,
// the fair choice of due deliveries, the next retry's time) with a large outbox, against the same pass over
// an empty outbox measured in the same run. Four outboxes over the same endpoints: empty; every delivery
// waiting for a retry (receivers that are down); the same with each endpoint's newest event due (a receiver
// back up: the case that walked every waiting row); and every delivery due.
// Prints the median and p95 per outbox, the ratio to empty, PASS/FAIL against the target (a pass ≤ 100 ms).
// A benchmark, not a test: exits 0 either way (1 only if it could not run).
import { rm } from "node:fs/promises";
import { sql } from "kysely";
import pino from "pino";
import { startEmbeddedPostgres } from "@caption/control-plane";
import { dryRelayHandOver, insertAccountWithEndpoints } from "@caption/control-plane/testing";
import { createDatabase, type Db } from "@caption/shared/db/database";
import { migrateToLatest } from "@caption/shared/db/migrator";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { percentile } from "../abuse/phases.ts";
import { median } from "../api/scenario-summary.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: relay-bench [options]
  --endpoints N (200)     webhook endpoints, ten an account
  --deliveries N (100000) pending deliveries, spread evenly over the endpoints
  --passes N (40)         hand-overs timed per outbox`;
const TARGET_MS = 100;
const CAPACITY = 16;
const NOW = new Date("2030-01-01T12:00:00Z");

async function timePasses(db: Db, passes: number): Promise<number[]> {
  await sql`ANALYZE`.execute(db);
  await dryRelayHandOver(db, NOW, CAPACITY); // warm: plans and caches
  const times: number[] = [];
  for (let i = 0; i < passes; i += 1) {
    const started = performance.now();
    await dryRelayHandOver(db, NOW, CAPACITY);
    times.push(performance.now() - started);
  }
  return times;
}

/**
 * `count` pending deliveries spread over `endpoints` in turn, in event order: those numbered `dueFrom` and
 * after are due (never attempted), those before wait for a retry an hour from NOW (attempted once).
 */
async function fillOutbox(db: Db, endpoints: readonly string[], count: number, dueFrom: number): Promise<void> {
  await sql`TRUNCATE webhook_deliveries CASCADE`.execute(db);
  await sql`
    INSERT INTO webhook_deliveries (endpoint_id, event_id, type, event_at, next_attempt_at, attempts, payload)
    SELECT (${endpoints}::text[])[1 + i % ${endpoints.length}], 'evt_bench_' || i, 'webhook_endpoint.disabled', event_at,
      CASE WHEN i >= ${dueFrom} THEN event_at ELSE ${NOW}::timestamptz + interval '1 hour' + i * interval '1 ms' END,
      CASE WHEN i >= ${dueFrom} THEN 0 ELSE 1 END, '{}'
    FROM generate_series(1, ${count}) AS i, LATERAL (SELECT ${NOW}::timestamptz - interval '1 hour' + i * interval '1 ms' AS event_at) AS t`.execute(db);
}

async function main(argv: string[]): Promise<number> {
  const options = { endpoints: { type: "string", default: "200" }, deliveries: { type: "string", default: "100000" }, passes: { type: "string", default: "40" }, help: { type: "boolean", short: "h", default: false } } as const;
  const values = parseCommandLine({ args: argv, options, strict: true }, USAGE);
  if (typeof values === "number") return values;
  const [endpointCount, deliveries, passes] = [Number(values.endpoints), Number(values.deliveries), Number(values.passes)];
  const dir = await makeWorkDir();
  const postgres = await startEmbeddedPostgres(dir, pino({ level: "warn" }));
  const db = createDatabase(postgres.url, { max: 2, applicationName: "caption-bench" });
  try {
    await migrateToLatest(db);
    const endpoints: string[] = [];
    for (let a = 0; a * 10 < endpointCount; a += 1) {
      const events = Array.from({ length: Math.min(10, endpointCount - a * 10) }, () => ({ events: ["webhook_endpoint.disabled" as const] }));
      endpoints.push(...(await insertAccountWithEndpoints(db, `acct_bench_${a}`, events, NOW)));
    }
    const rows: { outbox: string; times: number[] }[] = [];
    const outboxes: [string, number, number][] = [
      ["empty (baseline)", 0, 0],
      [`${deliveries} waiting for a retry`, deliveries, deliveries + 1],
      [`${deliveries} waiting, each endpoint's newest due`, deliveries, deliveries - endpoints.length + 1],
      [`${deliveries} due`, deliveries, 0],
    ];
    for (const [outbox, count, dueFrom] of outboxes) {
      await fillOutbox(db, endpoints, count, dueFrom);
      rows.push({ outbox, times: await timePasses(db, passes) });
    }

    const base = median(rows[0]?.times ?? [1]);
    console.log(`webhook relay hand-over, ${endpointCount} endpoints, ${passes} passes per outbox\n`);
    console.log("| outbox | median ms | p95 ms | median ÷ empty |\n|---|---:|---:|---:|");
    for (const row of rows) console.log(`| ${row.outbox} | ${median(row.times).toFixed(2)} | ${percentile(row.times, 95).toFixed(2)} | ${(median(row.times) / base).toFixed(2)} |`);
    const worst = Math.max(...rows.map((row) => percentile(row.times, 95)));
    console.log(`\n${worst <= TARGET_MS ? "PASS" : "FAIL"} every outbox's p95 pass ≤ ${TARGET_MS} ms (worst ${worst.toFixed(1)} ms)`);
    return 0;
  } finally {
    await db.destroy();
    await postgres.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
