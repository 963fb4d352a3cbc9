// The floor of the API benchmark: a bare node:http server over a pg pool that does the database work of
// GET /v1/jobs/{id} and POST /v1/subtitles and nothing else — no Koa, no validation, no telemetry, no
// logging. Its numbers, measured against the same database in the same run, are what the API's are
// compared with (ratios), since absolute req/s differ 2–6× between machines of one kind.
// Started by floor-phase.ts with DATABASE_URL; prints {"url": …} once listening; stops when stdin ends.
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import pg from "pg";
import pino from "pino";
import { startQueueClient } from "@caption/shared/jobs/queue-client";
import { QUEUES } from "@caption/shared/jobs/catalog";

const databaseUrl = process.env.DATABASE_URL ?? "";
const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
const boss = await startQueueClient(databaseUrl, { supervise: false, schedule: false }, { max: 2 }, pino({ level: "silent" }));

const KEY = /^Bearer (cap_([a-z0-9]{12})_[A-Za-z0-9_-]{32,64})$/;

// The API's own statement shape: the key found and this request counted in its minute, the job read beside it.
// Standing alone (a poll), it commits without waiting for the WAL flush, as the API's does.
const countedKey = (asyncCommit: boolean) => `
  WITH key AS (
    SELECT k.id, k.account_id, k.scopes, a.rate_limit_per_minute FROM api_keys k JOIN accounts a ON a.id = k.account_id
      ${asyncCommit ? "CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit" : ""}
    WHERE k.prefix = $1 AND k.secret_hash = $2 AND k.revoked_at IS NULL
  ), counted AS (
    INSERT INTO rate_limit_windows (api_key_id, window_start, count) SELECT id, date_trunc('minute', now()), 1 FROM key
    ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1 RETURNING count
  )`;
const GET_JOB = `${countedKey(true)} SELECT key.account_id, j.* FROM key CROSS JOIN counted LEFT JOIN jobs j ON j.id = $3 AND j.account_id = key.account_id`;
const FIND_KEY = `${countedKey(false)} SELECT key.account_id FROM key CROSS JOIN counted`;
const BALANCE = `SELECT coalesce(sum(l.seconds) FILTER (WHERE l.kind = 'grant'), 0) AS granted,
    coalesce(sum(l.seconds) FILTER (WHERE l.kind = 'charge'), 0) AS consumed,
    coalesce(sum(l.seconds) FILTER (WHERE l.kind = 'reserve' AND NOT EXISTS (
      SELECT 1 FROM credit_ledger s WHERE s.job_id = l.job_id AND s.kind IN ('charge', 'release'))), 0) AS reserved
  FROM credit_ledger l WHERE l.account_id = $1`;
const INSERT_JOB = `INSERT INTO jobs (id, account_id, status, video_url, preset, language, style, max_duration_seconds, base_url)
  VALUES ($1, $2, 'queued', $3, $4, NULL, $5, 600, $6)`;

const send = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
};

const credentials = (request: IncomingMessage) => {
  const match = KEY.exec(request.headers.authorization ?? "");
  return match ? [match[2] ?? "", createHash("sha256").update(match[1] ?? "").digest("hex")] : null;
};

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

async function getJob(request: IncomingMessage, response: ServerResponse, id: string) {
  const key = credentials(request);
  if (!key) return send(response, 401, { error: "unauthorized" });
  const { rows } = await pool.query(GET_JOB, [...key, id]);
  const row = rows[0];
  if (!row) return send(response, 401, { error: "unauthorized" });
  if (row.id === null) return send(response, 404, { error: "not found" });
  send(response, 200, row);
}

async function submit(request: IncomingMessage, response: ServerResponse) {
  const key = credentials(request);
  if (!key) return send(response, 401, { error: "unauthorized" });
  const body = await readJson(request);
  const idempotencyKey = request.headers["idempotency-key"];
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query(FIND_KEY, key);
    const accountId = rows[0]?.account_id as string | undefined;
    if (!accountId) {
      await client.query("ROLLBACK");
      return send(response, 401, { error: "unauthorized" });
    }
    if (typeof idempotencyKey === "string") {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`${accountId}\n${idempotencyKey}`]);
      await client.query("SELECT request_hash, job_id FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > now()", [accountId, idempotencyKey]);
    }
    await client.query(BALANCE, [accountId]);
    const id = `job_floor_${randomUUID()}`;
    await client.query(INSERT_JOB, [id, accountId, body.video_url, body.preset ?? "classic", JSON.stringify(body.style ?? {}), "http://floor"]);
    await boss.send(QUEUES.captionJob, { job_id: id }, { db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) } });
    if (typeof idempotencyKey === "string") {
      await client.query(
        "INSERT INTO idempotency_keys (account_id, key, request_hash, job_id, expires_at) VALUES ($1, $2, $3, $4, now() + interval '24 hours')",
        [accountId, idempotencyKey, createHash("sha256").update(JSON.stringify(body)).digest("hex"), id],
      );
    }
    await client.query("COMMIT");
    send(response, 202, { id, status: "queued", status_url: `http://floor/v1/jobs/${id}` });
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const server = createServer((request, response) => {
  const url = request.url ?? "";
  const job = /^\/v1\/jobs\/([^/]+)$/.exec(url);
  const handling = request.method === "GET" && job ? getJob(request, response, job[1] ?? "")
    : request.method === "POST" && url === "/v1/subtitles" ? submit(request, response)
    : Promise.resolve(send(response, 404, { error: "not found" }));
  handling.catch((error: unknown) => send(response, 500, { error: String(error) }));
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}` })}\n`);
});
process.stdin.on("end", () => {
  server.close();
  server.closeAllConnections();
  void boss.stop({ graceful: false, close: true }).then(() => pool.end()).then(() => process.exit(0));
}).resume();
