// `npm run bench:abuse [-- options]`: one account attacks the API (inflating bodies, webhook endpoints that
// never answer fed by submit-and-cancel churn, many event streams, PATCHes held open on its own upload URL)
// while a second account works normally. Prints the second account's GET /v1/jobs/{id} p99 and (with the
// uploads attack) its upload PATCH p99 against their quiet values (target ≤ 2×), how long its webhooks take
// after the event (target ≤ 10 s), and the API process's peak RSS (target < 512 MiB).
// Quiet and attack windows alternate (--rounds), and each phase's p99 is taken over all its responses.
// A benchmark, not a test: PASS/FAIL lines, exit 0 either way (1 only if it could not run).
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { startEmbeddedService, type EmbeddedService } from "@caption/control-plane/testing";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { ensureTestCa } from "@caption/shared/testing/test-ca";
import { ATTACKS, startAttackThread, startSilentListener, type AttackName, type AttackThread } from "../abuse/attack.ts";
import { cpuShare, inWindow, loopDelay, newPhase, type Phase } from "../abuse/phases.ts";
import { report } from "../abuse/report.ts";
import { startWebhookTimer } from "../abuse/victim.ts";
import { victimUploads } from "../abuse/victim-uploads.ts";
import { rssOf, sampleRss } from "../rss-sampler.ts";
import { apiScenarios, seedJobs } from "../api/api-scenarios.ts";
import { runLoad } from "../api/run-load.ts";
import { createBenchKey } from "../bench-key.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: abuse-bench [options]
  --rounds N (3)      quiet and attack windows alternate N times
  --duration S (10)   each attack window (the second account's load beside the attack)
  --quiet S (10)      each quiet window (the second account's load alone)
  --streams N (1000)  event streams the attacker opens   --churn N (4)  submit-and-cancel loops
  --connections N (5) the second account's GET connections
  --held N (120)      PATCHes the attacker holds open on its upload URL
  --uploaders N (4)   the second account's uploads written at once (one PATCH after another each)
  --attacks LIST (bodies,churn,streams,uploads)  which attacks run (one at a time shows what each costs)
  --attacker KIND (ordinary)  the attacker's key: ordinary (a new account's limits: 1200 requests a
                      minute, 4 jobs at once) or unlimited (both lifted: what the API can take at all)
  --profile DIR       CPU profile of the API process into DIR`;

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        rounds: { type: "string", default: "3" },
        duration: { type: "string", default: "10" },
        quiet: { type: "string", default: "10" },
        streams: { type: "string", default: "1000" },
        churn: { type: "string", default: "4" },
        connections: { type: "string", default: "5" },
        held: { type: "string", default: "120" },
        uploaders: { type: "string", default: "4" },
        attacks: { type: "string", default: ATTACKS.join(",") },
        attacker: { type: "string", default: "ordinary" },
        profile: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  const raw = [values.rounds, values.duration, values.quiet, values.streams, values.churn, values.connections, values.held, values.uploaders];
  const numbers = raw.map(Number);
  const [rounds, duration, quiet, streams, churnLoops, connections, held, uploaders] = numbers as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!numbers.every((n) => Number.isInteger(n) && n > 0)) {
    process.stderr.write(`every option is a positive whole number\n${USAGE}\n`);
    return 2;
  }
  const attacks = values.attacks.split(",").filter((a) => a !== "");
  if (attacks.length === 0 || !attacks.every((a): a is AttackName => (ATTACKS as readonly string[]).includes(a))) {
    process.stderr.write(`--attacks is a list of ${ATTACKS.join(", ")}\n${USAGE}\n`);
    return 2;
  }
  if (values.attacker !== "ordinary" && values.attacker !== "unlimited") {
    process.stderr.write(`--attacker is ordinary or unlimited\n${USAGE}\n`);
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
    // The second account's limits are lifted so that its load measures the API, not its own rate limit.
    const unlimited = { scopes: ["subtitles:write"], credits: 1_000_000, concurrency: 1_000_000_000, ratePerMinute: 1_000_000_000 };
    const ordinary = { scopes: ["subtitles:write"], credits: 1_000_000 };
    const attackerKey = await createBenchKey(service.databaseUrl, { name: "attacker", ...(values.attacker === "ordinary" ? ordinary : unlimited) });
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
    const uploads = attacks.includes("uploads") ? victimUploads(service.url, victimKey, uploaders) : undefined;
    if (!get || !attackerJob) throw new Error("no GET scenario");
    const pid = service.pid;
    const url = service.url;

    const quietWebhooks = [await timer.measureOne(30_000), await timer.measureOne(30_000)];
    const MiB = 2 ** 20;
    const rssBefore = rssOf(pid) / MiB;
    const rss = sampleRss(pid, 250);
    const [calm, attacked] = [newPhase(), newPhase()];
    const load = async (phase: Phase, seconds: number, label: string) => {
      const [measured, uploaded] = await inWindow(phase, pid, () =>
        Promise.all([
          runLoad(get, { url, connections, durationSeconds: seconds, latencies: phase.latencies }, label),
          uploads?.run(seconds, phase.uploadLatencies),
        ]),
      );
      phase.requests += measured.requestsPerSecond * measured.durationSeconds;
      phase.unexpected += measured.unexpected;
      phase.uploadRequests += uploaded?.requests ?? 0;
      phase.uploadUnexpected += uploaded?.unexpected ?? 0;
    };
    let attack: AttackThread | undefined;
    let attacking = false;
    let finished = false;
    const webhookLatencies: (number | null)[] = [];
    const measuring = (async () => {
      while (!finished) {
        if (attacking) webhookLatencies.push(await timer.measureOne(60_000));
        else await delay(100);
      }
    })();
    // Quiet and attack windows alternate, so that a change in the machine's other load falls on both.
    for (let round = 1; round <= rounds; round++) {
      await load(calm, quiet, `quiet ${round}/${rounds}: the second account alone`);
      if (attack) attack.resume();
      else attack = startAttackThread({ url, key: attackerKey, jobId: attackerJob.id, streams, churnLoops, held, attacks });
      attacking = true;
      // Let the attack fill its queues (after a pause, get going again) before measuring beside it.
      await delay(round === 1 ? 5000 : 2000);
      await load(attacked, duration, `attack ${round}/${rounds}: the second account beside it`);
      attacking = false;
      attack.pause();
      // The attack's requests in flight finish before the next quiet window.
      await delay(1000);
    }
    finished = true;
    const counts = await attack!.stop();
    await measuring;
    const peakRss = rss.stop() / MiB;
    const loop = `quiet ${await loopDelay(loopDelayFile, calm)}; under attack ${await loopDelay(loopDelayFile, attacked)}`;
    const cpu = `quiet ${cpuShare(calm)}; under attack ${cpuShare(attacked)}`;
    const attackFigures = { counts, streams, churnLoops, held, duration, rounds, attacks, attacker: values.attacker };
    report({ cpu, loop, calm, attacked, quietWebhooks, webhookLatencies, peakRss, rssBefore, loadAtStart, ...attackFigures });
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

process.exitCode = await main(process.argv.slice(2));
