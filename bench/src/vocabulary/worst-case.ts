import { rm } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import type { Word } from "@caption/shared/api/transcript";
import { parseEnv } from "@caption/shared/config/env";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { locateDatabase, startApiServer } from "@caption/control-plane";
import type { defaultPhoneticLexicon } from "@caption/gpu-worker/asr";
import { createWordPass, vocabularyBudget } from "@caption/gpu-worker/words";
import { percentile } from "../abuse/phases.ts";
import { makeWorkDir } from "../work-dir.ts";
import { probeClock, startHealthzProbe, type HealthzSample } from "./healthz-probe.ts";

// The vocabulary that froze the service (issue 34): 100 distinct terms of 25 one-letter words (50 characters,
// the schema's longest), each letter said in several phones, over 60 s of speech that sounds like them
// (3 words a second, in stretches of 10 s as the voice detector hands them over). Nothing prunes this early:
// only the work budget ends it.
const CLIP_SECONDS = 60;
const STRETCHES = 6;
const WORDS_PER_SECOND = 3;
const QUIET_MS = 5000;
const CALIBRATION_MS = 250;

const worstTerm = (n: number) => Array.from({ length: 25 }, (_, k) => ((n >> k % 10) & 1 ? "a" : "w")).join(" ");
export const WORST_TERMS = Array.from({ length: 100 }, (_, n) => worstTerm(n * 37 + 5));

function stretch(index: number): Word[] {
  const seconds = CLIP_SECONDS / STRETCHES;
  const count = seconds * WORDS_PER_SECOND;
  return Array.from({ length: count }, (_, i) => {
    const start = index * seconds + i / WORDS_PER_SECOND;
    return { text: (index * count + i) % 7 === 3 ? "a" : "w", start, end: start + 0.3 };
  });
}

const summary = (samples: readonly HealthzSample[]) => {
  const ms = samples.map((s) => s.ms);
  return `p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms (${ms.length} requests)`;
};

const delays = (histogram: ReturnType<typeof monitorEventLoopDelay>) => `p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, max ${(histogram.max / 1e6).toFixed(1)} ms`;

/**
 * The worst-case vocabulary's post-pass in this process beside the API (as `npm start` runs both), with a thread
 * asking the API's /healthz meanwhile: the pass's time and work, and /healthz quiet, during the pass, and during
 * a deliberate block of the event loop (which shows the probe would see one).
 */
export async function measureWorstCase(lexicon: Awaited<ReturnType<typeof defaultPhoneticLexicon>>): Promise<void> {
  const dataDir = await makeWorkDir();
  // Quiet: stopping the database under the API at the end makes its pool warn.
  const logger = createCliLogger("error");
  const env = parseEnv({ DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" });
  const database = await locateDatabase(env, logger);
  const api = await startApiServer(env, database.url, logger, { metrics: false });
  const probe = startHealthzProbe(`${api.url}/healthz`);
  try {
    const windows: Record<"quiet" | "pass" | "blocked", [number, number]> = { quiet: [0, 0], pass: [0, 0], blocked: [0, 0] };
    // This event loop's own delay in each window (the API's, as `npm start` shares one).
    const histogram = () => monitorEventLoopDelay({ resolution: 5 });
    const loop = { quiet: histogram(), pass: histogram(), blocked: histogram() };
    // The probe's first answers (its connection, the server's first requests) belong to no window.
    await delay(1000);
    windows.quiet[0] = probeClock();
    loop.quiet.enable();
    await delay(QUIET_MS);
    loop.quiet.disable();
    windows.quiet[1] = probeClock();

    const setupStarted = performance.now();
    const pass = await createWordPass({ vocabulary: WORST_TERMS, replacements: {}, profanity: "keep" }, lexicon, { seconds: CLIP_SECONDS });
    const setupMs = performance.now() - setupStarted;
    // In a job the thread starts while the first stretch of speech is decoded and recognised.
    await pass.ready();
    windows.pass[0] = probeClock();
    loop.pass.enable();
    const passStarted = performance.now();
    const stretchMs: number[] = [];
    for (let s = 0; s < STRETCHES; s++) {
      const started = performance.now();
      await pass(stretch(s));
      stretchMs.push(performance.now() - started);
    }
    const passMs = performance.now() - passStarted;
    loop.pass.disable();
    windows.pass[1] = probeClock();
    await pass.close();

    await delay(500);
    windows.blocked[0] = probeClock();
    loop.blocked.enable();
    await delay(10);
    while (probeClock() - windows.blocked[0] < CALIBRATION_MS);
    await delay(500);
    loop.blocked.disable();
    windows.blocked[1] = probeClock();

    const samples = await probe.stop();
    const within = ([from, to]: [number, number]) => samples.filter((s) => s.at >= from && s.at < to);
    const work = pass.work!;
    console.log(`\nworst case: ${WORST_TERMS.length} distinct terms of 25 one-letter words on ${CLIP_SECONDS} s of speech (${STRETCHES} stretches, ${CLIP_SECONDS * WORDS_PER_SECOND} words), beside the API in one process`);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`  post-pass: ${seconds(passMs)} (target ≤ 2 s; stretches ${stretchMs.map(seconds).join(", ")}), the thread's CPU ${seconds(work.cpuMs)}`);
    console.log(`  before it: terms looked up in ${seconds(setupMs)}, the thread started in ${seconds(work.startMs)}`);
    const budget = `${(vocabularyBudget(CLIP_SECONDS) / 1e6).toFixed(0)} M budget${work.spent ? " (spent: the rest by spelling only)" : ""}`;
    console.log(`  work: ${(work.used / 1e6).toFixed(1)} M units of a ${budget}, ${(work.used / work.cpuMs / 1000).toFixed(0)} M units per CPU second`);
    const row = (name: keyof typeof windows) => `${summary(within(windows[name]))}; event loop delay ${delays(loop[name])}`;
    console.log(`  /healthz quiet:              ${row("quiet")}`);
    console.log(`  /healthz during the pass:    ${row("pass")} (target p99 < 50 ms)`);
    console.log(`  /healthz, loop blocked ${CALIBRATION_MS} ms: ${row("blocked")} (what a blocked event loop looks like)`);
  } finally {
    await probe.stop().catch(() => undefined);
    await api.stop();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
