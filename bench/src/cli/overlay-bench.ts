// `npm run bench:overlay [-- --presets highlight,karaoke --seconds 60]`: what the transparent overlay costs
// next to the burned video, in CPU time of the whole service (API, worker, its ffmpeg and PostgreSQL), for
// caption jobs (recognition included) and render jobs (the same video rendered again: no recognition), and
// the checks of a job rendering both: alpha, the MOV beside the WebM, the WebM over the source against the
// burned MP4. A benchmark, not a test: prints PASS/FAIL against the 0.7 target and exits 0 either way.
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Job } from "@caption/shared/api/job";
import type { OutputKind } from "@caption/shared/api/output";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { createBenchKey } from "../bench-key.ts";
import { checkOverlay } from "../overlay/overlay-checks.ts";
import { submitJob, waitForJob, withBenchService } from "../pipeline/bench-service.ts";
import { makeBenchVideo } from "../pipeline/bench-videos.ts";
import { treeCpuMs } from "../pipeline/tree-cpu.ts";
import { REPO_ROOT } from "../repo-root.ts";
import { makeWorkDir } from "../work-dir.ts";
import { atMost } from "../targets.ts";

const USAGE = `usage: overlay-bench [--presets a,b] [--seconds S]
  --presets a,b   presets to measure (default: highlight,karaoke,glow: one word change at a time, a fill every frame, alpha every frame)
  --seconds S     length of the portrait 1080x1920 narration video (default 60)`;
const TARGET_RATIO = 0.7;

interface Run {
  preset: PresetId;
  job: "caption" | "render";
  kind: OutputKind;
  cpuSeconds: number;
  wallSeconds: number;
}

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine({ args: argv, options: { presets: { type: "string", default: "highlight,karaoke,glow" }, seconds: { type: "string", default: "60" }, help: { type: "boolean", short: "h", default: false } }, strict: true }, USAGE);
  if (typeof values === "number") return values;
  const presets = values.presets.split(",") as PresetId[];
  if (presets.some((p) => !(PRESET_IDS as readonly string[]).includes(p)) || !(Number(values.seconds) > 0)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const loadAtStart = os.loadavg();
  const workDir = await makeWorkDir();
  try {
    process.stderr.write(`making a ${values.seconds} s portrait narration video…\n`);
    const video = await makeBenchVideo("portrait", Number(values.seconds));
    const runs: Run[] = [];
    let checks: Awaited<ReturnType<typeof checkOverlay>> | undefined;
    // CPU time is what is compared: a machine busy with other work must not turn slow jobs into failed ones.
    const env = { PROCESSING_DEADLINE_BASE_SECONDS: "3600" };
    await withBenchService({ videos: new Map([["clip", video]]), dataDir: path.join(workDir, "service"), workerConcurrency: 1, env }, async ({ service, videoUrl }) => {
      await service.waitForLine((entry) => entry.msg === "speech engine ready");
      const key = await createBenchKey(service.databaseUrl, { name: "overlay-bench", scopes: ["subtitles:write"], credits: 100 * Math.ceil(video.durationSeconds), concurrency: 4 });
      /** One job, alone on the service: its CPU time from submission to completion. */
      const measure = async (preset: PresetId, job: Run["job"], kind: OutputKind, submit: () => Promise<string>): Promise<Job> => {
        process.stderr.write(`  ${preset} ${job} job, output ${kind}…`);
        const before = await treeCpuMs(service.pid);
        const started = performance.now();
        const done = await waitForJob(service, key, await submit(), () => undefined);
        const after = await treeCpuMs(service.pid);
        if (done.status !== "completed") throw new Error(`${preset} ${kind} job ended ${done.status}: ${JSON.stringify(done.error)}`);
        const cpuSeconds = (after.rootMs + after.descendantsMs - before.rootMs - before.descendantsMs) / 1000;
        runs.push({ preset, job, kind, cpuSeconds, wallSeconds: (performance.now() - started) / 1000 });
        process.stderr.write(` ${cpuSeconds.toFixed(1)} s CPU\n`);
        return done;
      };
      for (const preset of presets) {
        const caption = (kind: OutputKind) => measure(preset, "caption", kind, () => submitJob(service, key, { video_url: videoUrl("clip"), preset, output: { kind } }));
        const burned = await caption("burned");
        await caption("overlay");
        const render = (kind: OutputKind) =>
          measure(preset, "render", kind, async () => {
            const response = await fetch(`${service.url}/v1/jobs/${burned.id}/renders`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ output: { kind } }) });
            const body = (await response.json()) as { id?: string };
            if (response.status !== 202 || !body.id) throw new Error(`render refused: ${response.status} ${JSON.stringify(body)}`);
            return body.id;
          });
        await render("burned");
        await render("overlay");
        const both = await render("both");
        if (checks === undefined) {
          process.stderr.write("  checking the overlay of the job rendering both…\n");
          const files = { source: video.path, burned: path.join(workDir, "both.mp4"), webm: path.join(workDir, "both.webm"), mov: path.join(workDir, "both.mov") };
          const overlay = both.video?.overlay_urls;
          const links = [[files.burned, both.video?.url], [files.webm, overlay?.webm_url], [files.mov, overlay?.mov_url]] as const;
          for (const [file, url] of links) {
            await writeFile(file, Buffer.from(await (await fetch(url!)).arrayBuffer()));
          }
          checks = await checkOverlay(files, { width: video.width, height: video.height });
        }
      }
    });

    const cpu = (preset: PresetId, job: Run["job"], kind: OutputKind) => runs.find((r) => r.preset === preset && r.job === job && r.kind === kind)?.cpuSeconds ?? Number.NaN;
    console.log(`\nOverlay benchmark: portrait 1080x1920 ${video.durationSeconds.toFixed(1)} s, ${os.cpus().length} CPUs, load average at start ${loadAtStart.map((n) => n.toFixed(2)).join(" ")}, at end ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
    console.log(`${"preset".padEnd(10)}${"job".padEnd(9)}${"burned s".padStart(10)}${"overlay s".padStart(11)}${"both s".padStart(9)}${"overlay/burned".padStart(16)}  target`);
    const targets = [];
    for (const preset of presets) {
      for (const job of ["caption", "render"] as const) {
        const ratio = cpu(preset, job, "overlay") / cpu(preset, job, "burned");
        const check = atMost(`${preset} ${job} job overlay / burned CPU`, Math.round(ratio * 100) / 100, TARGET_RATIO, "×");
        targets.push(check);
        console.log(`${preset.padEnd(10)}${job.padEnd(9)}${cpu(preset, job, "burned").toFixed(1).padStart(10)}${cpu(preset, job, "overlay").toFixed(1).padStart(11)}${(job === "render" ? cpu(preset, job, "both").toFixed(1) : "-").padStart(9)}${ratio.toFixed(2).padStart(16)}  ≤ ${TARGET_RATIO}: ${check.pass ? "PASS" : "FAIL"}`);
      }
    }
    if (checks) {
      const box = checks.alphaBox;
      console.log(`\nthe job rendering both (${presets[0]}), ${checks.frames} frames sampled:`);
      console.log(`  alpha outside ${box ? `rows ${box.top}–${box.bottom}, columns ${box.left}–${box.right}` : "(none anywhere)"} is 0 in every frame; opaque pixels: WebM ${checks.opaque.webm}, MOV ${checks.opaque.mov}; frames whose WebM and MOV alpha differ by more than 1: ${checks.alphaMismatches}`);
      console.log(`  WebM over the source vs the burned MP4 (CRF 20) over those rows: luma off by ${checks.composite.meanLuma.toFixed(2)} on average, ${checks.composite.maxLuma} at most`);
    }
    const resultsDir = path.join(REPO_ROOT, "bench/results");
    await mkdir(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `overlay-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    await writeFile(file, `${JSON.stringify({ video: { seconds: video.durationSeconds, width: video.width, height: video.height }, load_average_at_start: loadAtStart, runs, targets, checks }, null, 2)}\n`);
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  } finally {
    await rm(workDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

process.exitCode = await main(process.argv.slice(2));
