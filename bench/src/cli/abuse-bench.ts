// `npm run bench:abuse [-- options]`: one account attacks the API (inflating bodies, webhook endpoints that
// never answer fed by submit-and-cancel churn, many event streams) while a second account works normally.
// Prints the second account's GET /v1/jobs/{id} p99 against its quiet value (target ≤ 2×), how long its
// webhooks take after the event (target ≤ 10 s), and the API process's peak RSS (target < 512 MiB).
// A benchmark, not a test: PASS/FAIL lines, exit 0 either way (1 only if it could not run).
import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedService, type EmbeddedService } from "@caption/control-plane/testing";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { ensureTestCa } from "@caption/shared/testing/test-ca";
import { ATTACKS, runAttackThread, startSilentListener, type AttackCounts, type AttackName } from "../abuse/attack.ts";
import { rssMiB, startWebhookTimer } from "../abuse/victim.ts";
import { apiScenarios, seedJobs } from "../api/api-scenarios.ts";
import { runLoad, type Measurement } from "../api/run-load.ts";
import { createBenchKey } from "../bench-key.ts";
import { atMost, type TargetCheck } from "../targets.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: abuse-bench [options]
  --duration S (30)   how long the attack (and the second account's load beside it) runs
  --quiet S (10)      the second account's load alone, first
  --streams N (1000)  event streams the attacker opens   --churn N (4)  submit-and-cancel loops
  --connections N (5) the second account's GET connections
  --attacks LIST (bodies,churn,streams)  which attacks run (one at a time shows what each costs)
  --profile DIR       CPU profile of the API process into DIR`;

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        duration: { type: "string", default: "30" },
        quiet: { type: "string", default: "10" },
        streams: { type: "string", default: "1000" },
        churn: { type: "string", default: "4" },
        connections: { type: "string", default: "5" },
        attacks: { type: "string", default: ATTACKS.join(",") },
        profile: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  const [duration, quiet, streams, churnLoops, connections] = [values.duration, values.quiet, values.streams, values.churn, values.connections].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  if (![duration, quiet, streams, churnLoops, connections].every((n) => Number.isInteger(n) && n > 0)) {
    process.stderr.write(`every option is a positive whole number\n${USAGE}\n`);
    return 2;
  }
  const attacks = values.attacks.split(",").filter((a) => a !== "");
  if (attacks.length === 0 || !attacks.every((a): a is AttackName => (ATTACKS as readonly string[]).includes(a))) {
    process.stderr.write(`--attacks is a list of ${ATTACKS.join(", ")}\n${USAGE}\n`);
    return 2;
  }
  const loadAtStart = os.loadavg();
  const dataDir = await makeWorkDir();
  let service: EmbeddedService | undefined;
  let receiver: TestHttpsServer | undefined;
  const silent = await startSilentListener();
  try {
    const caDir = path.join(dataDir, "ca");
    const loopDelayFile = path.join(dataDir, "loop-delay.jsonl");
    const ca = await ensureTestCa(caDir);
    receiver = await startTestHttpsServer({ caDir });
    service = await startEmbeddedService({
      entry: "bench/src/api/api-process.ts",
      dataDir,
      // Loopback receivers (the attacker's silent ones, the victim's) need the private-address allowance.
      env: { LOG_LEVEL: "warn", ALLOW_PRIVATE_VIDEO_URLS: "true", NODE_EXTRA_CA_CERTS: ca.caCertPath, BENCH_LOOP_DELAY_FILE: loopDelayFile },
      ...(values.profile ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] } : {}),
    });
    const unlimited = { scopes: ["subtitles:write"], credits: 1_000_000, concurrency: 1_000_000_000, ratePerMinute: 1_000_000_000 };
    const attackerKey = await createBenchKey(service.databaseUrl, { name: "attacker", ...unlimited });
    const victimKey = await createBenchKey(service.databaseUrl, { name: "victim", ...unlimited });
    const victimJobs = await seedJobs(service.url, [victimKey], 50);
    const [attackerJob] = await seedJobs(service.url, [attackerKey], 1);
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${service.url}/v1/webhook_endpoints`, {
        method: "POST",
        headers: { authorization: `Bearer ${attackerKey}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `https://127.0.0.1:${silent.port}/never-${i}`, events: ["job.canceled", "job.progress"] }),
      });
      if (res.status !== 201) throw new Error(`the attacker's endpoint ${i} was refused: ${res.status}`);
    }
    const timer = await startWebhookTimer(receiver, service.url, victimKey, "/victim");
    const get = apiScenarios([victimKey], victimJobs).find((s) => s.name === "GET /v1/jobs/{id}");
    if (!get || !attackerJob) throw new Error("no GET scenario");

    console.error(`quiet: the second account alone for ${quiet} s`);
    const quietWebhooks = [await timer.measureOne(30_000), await timer.measureOne(30_000)];
    const quietFrom = Date.now();
    const quietGet = await runLoad(get, { url: service.url, connections, durationSeconds: quiet }, "quiet GET /v1/jobs/{id}");
    const quietTo = Date.now();

    console.error(`attack: ${duration} s`);
    const stop = new AbortController();
    let peakRss = (await rssMiB(service.pid)) ?? 0;
    const rssBefore = peakRss;
    const sampler = setInterval(() => void rssMiB(service!.pid).then((mib) => (peakRss = Math.max(peakRss, mib ?? 0))), 250);
    const attack = runAttackThread({ url: service.url, key: attackerKey, jobId: attackerJob.id, streams, churnLoops, attacks, signal: stop.signal });
    // Let the attack fill its queues before measuring beside it.
    await new Promise((resolve) => setTimeout(resolve, Math.min(5, duration / 3) * 1000));
    const webhookLatencies: (number | null)[] = [];
    const measuring = (async () => {
      while (!stop.signal.aborted) webhookLatencies.push(await timer.measureOne(60_000));
    })();
    const attackFrom = Date.now();
    const attackGet = await runLoad(get, { url: service.url, connections, durationSeconds: duration }, "GET /v1/jobs/{id} under attack");
    const attackTo = Date.now();
    stop.abort();
    const counts = await attack;
    await measuring;
    clearInterval(sampler);
    const loop = await loopDelays(loopDelayFile, [quietFrom, quietTo], [attackFrom, attackTo]);
    report({ loop, quietGet, attackGet, quietWebhooks, webhookLatencies, peakRss, rssBefore, counts, loadAtStart, streams, churnLoops, duration, attacks });
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    return 1;
  } finally {
    await service?.stop();
    await receiver?.close();
    await silent.close();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

interface LoopDelay {
  at: number;
  p50: number;
  p99: number;
  max: number;
}

/** The API's event loop delay per phase: the median of its per-second p99s, and the worst second's max. */
async function loopDelays(file: string, quiet: [number, number], attack: [number, number]): Promise<string> {
  const lines = (await readFile(file, "utf8").catch(() => "")).split("\n").filter((line) => line !== "");
  const seconds = lines.map((line) => JSON.parse(line) as LoopDelay);
  const describe = ([from, to]: [number, number]) => {
    const within = seconds.filter((s) => s.at > from + 1000 && s.at <= to);
    const p99s = within.map((s) => s.p99).sort((a, b) => a - b);
    return `p99 ${p99s[Math.floor(p99s.length / 2)] ?? "?"} ms (median of ${p99s.length} s), worst ${Math.max(0, ...within.map((s) => s.max))} ms`;
  };
  return `quiet ${describe(quiet)}; under attack ${describe(attack)}`;
}

interface Figures {
  loop: string;
  quietGet: Measurement;
  attackGet: Measurement;
  quietWebhooks: (number | null)[];
  webhookLatencies: (number | null)[];
  peakRss: number;
  rssBefore: number;
  counts: AttackCounts;
  loadAtStart: number[];
  streams: number;
  churnLoops: number;
  duration: number;
  attacks: string[];
}

function report(f: Figures): void {
  const arrived = f.webhookLatencies.filter((s): s is number => s !== null).sort((a, b) => a - b);
  const lost = f.webhookLatencies.length - arrived.length;
  const worst = lost > 0 ? Number.POSITIVE_INFINITY : (arrived[arrived.length - 1] ?? Number.POSITIVE_INFINITY);
  const p99Ratio = f.quietGet.latencyMs.p99 > 0 ? f.attackGet.latencyMs.p99 / f.quietGet.latencyMs.p99 : 0;
  const checks: TargetCheck[] = [
    atMost("second account's GET p99 ÷ its quiet p99", Math.round(p99Ratio * 100) / 100, 2, "×"),
    atMost("second account's slowest webhook after its event", Math.round(worst * 100) / 100, 10, "s"),
    atMost("API process peak RSS", Math.round(f.peakRss), 512, "MiB"),
  ];
  const fmt = (s: number | null) => (s === null ? "none in 60 s" : `${s.toFixed(2)} s`);
  console.log(`\nabuse benchmark: ${f.duration} s attack, ${os.cpus().length} CPUs, Node ${process.versions.node}`);
  console.log(`load average at start ${f.loadAtStart.map((n) => n.toFixed(2)).join(" ")}, at end ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  console.log(`attacks: ${f.attacks.join(", ")}`);
  console.log(`attacker: ${f.churnLoops} submit+cancel loops (${f.counts.churned} jobs) feeding 10 endpoints that never answer; ${f.counts.encodedBodies} brotli bodies inflating to 16 MiB;`);
  console.log(`          ${f.counts.streamsOpened} of ${f.streams} event streams opened; answers ${JSON.stringify(f.counts.statusCodes)}`);
  console.log(`second account GET /v1/jobs/{id}: quiet ${f.quietGet.requestsPerSecond} req/s p99 ${f.quietGet.latencyMs.p99} ms; under attack ${f.attackGet.requestsPerSecond} req/s p99 ${f.attackGet.latencyMs.p99} ms (${p99Ratio.toFixed(2)}×), unexpected ${f.attackGet.unexpected}`);
  console.log(`second account webhooks: quiet ${f.quietWebhooks.map(fmt).join(", ")}; under attack ${arrived.length} arrived (p50 ${fmt(arrived[Math.floor(arrived.length / 2)] ?? null)}, slowest ${fmt(arrived[arrived.length - 1] ?? null)}), ${lost} not within 60 s`);
  console.log(`API event loop delay: ${f.loop}`);
  console.log(`API process RSS: ${f.rssBefore.toFixed(0)} MiB before, peak ${f.peakRss.toFixed(0)} MiB`);
  for (const c of checks) console.log(`  ${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.measured} ${c.unit} (limit ${c.limit} ${c.unit})`);
}

process.exitCode = await main(process.argv.slice(2));
