import { cpuBoundJobToFloor, libassToFloor, oursToLibass, type BenchResult, type PresetSweep, type RenderRun } from "./bench-result.ts";
import { STAGE_ORDER } from "./stage-chart-svg.ts";

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const ratio = (value: number) => value.toFixed(2);
const optionalRatio = (value: number | null) => (value === null ? "" : ratio(value));
const cpuRatio = (run: RenderRun) => `${ratio(run.cpu_ratio_to_floor)}${run.cpu_ratios ? ` (${run.cpu_ratios.map(ratio).join(", ")})` : ""}`;
// Older results have no ratio of node's own: their node CPU ÷ the sweep's mean floor.
const nodeRatio = (run: RenderRun, sweep: PresetSweep) =>
  (run.node_cpu_ratio_to_floor ?? (run.node_cpu_ms === undefined ? undefined : run.node_cpu_ms / sweep.floor.cpu_ms))?.toFixed(3) ?? "–";
const table = (header: readonly string[], rows: readonly (readonly (string | number)[])[]) =>
  [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)].join("\n");

/** The human-readable report written next to the JSON (and pasted into the docs/performance.md). */
export function summaryMarkdown(result: BenchResult, chartFile: string): string {
  const { machine } = result;
  const leastRatio = (job: BenchResult["jobs"][number]) => {
    const least = cpuBoundJobToFloor(job, machine.cpus);
    return least === null ? "–" : ratio(least);
  };
  const parts: string[] = [
    `# Pipeline benchmark, ${result.mode} run, ${result.started_at}`,
    "",
    `\`${result.command}\` on ${machine.cpus} × ${machine.cpu_model}, ${machine.memory_gib} GiB, Node ${machine.node}, ffmpeg ${machine.ffmpeg}; ` +
      `encoder ${result.encoder}, decoder ${result.decoder}; load average ${machine.load_average_at_start.map((n) => n.toFixed(2)).join("/")} at start, ${machine.load_average_at_end.map((n) => n.toFixed(2)).join("/")} at end.`,
    "",
    "## Targets",
    "",
    table(["check", "measured", "limit", ""], result.targets.map((t) => [t.name, `${t.measured.toFixed(t.unit === "×" ? 2 : 3)} ${t.unit}`, `${t.limit.toFixed(2)} ${t.unit}`, t.pass ? "PASS" : "**FAIL**"])),
    "",
    "## Whole jobs through the API",
    "",
    `![stage breakdown](${chartFile})`,
    "",
    table(
      ["video", "preset", "job s", ...STAGE_ORDER.map((s) => `${s} s`), "floor s", "job / floor", "job CPU s", "floor CPU s", `least job / floor on ${machine.cpus} cores`, "peak RSS MiB", "frames drawn"],
      result.jobs.map((job) => [
        `${job.clip.orientation} ${job.clip.width}x${job.clip.height} ${job.clip.duration_seconds.toFixed(0)} s`,
        job.preset,
        seconds(job.wall_ms),
        ...STAGE_ORDER.map((stage) => seconds(job.stage_ms[stage] ?? 0)),
        seconds(job.floor.wall_ms),
        ratio(job.wall_ms / job.floor.wall_ms),
        job.cpu_ms === undefined ? "–" : seconds(job.cpu_ms),
        seconds(job.floor.cpu_ms),
        leastRatio(job),
        (job.peak_rss_bytes / 2 ** 20).toFixed(0),
        job.frames_drawn,
      ]),
    ),
    "",
    `Job CPU: the service's processes (API, worker, its ffmpeg and recognizer, PostgreSQL) from submit to completed. Least job / floor: that CPU time spread over all ${machine.cpus} cores, ÷ the floor's wall time — the ratio a job could reach if no core ever waited, so a job whose least ratio is over its target cannot meet it on this machine by scheduling alone.`,
    "",
    ...jobCpuParts(result.jobs),
    "Floor: plain ffmpeg decode + re-encode of the same input, same encoder settings, no captions. libass: ffmpeg's subtitles filter burning in the same cues as an ASS script (gpu-worker/src/subtitles/ass), same encoder settings.",
    "",
    "## Render + encode per preset (CPU time, ratio to the floor)",
    "",
  ];
  if (result.presets.some((sweep) => sweep.runs.some((run) => run.cpu_ratios))) {
    parts.push("Each preset rendered several times (`--repeat`): the median ratio, each render's ratio to the floor runs beside it in brackets.", "");
  }
  for (const sweep of result.presets) {
    parts.push(
      `${sweep.clip.orientation} ${sweep.clip.width}x${sweep.clip.height}, ${sweep.clip.duration_seconds.toFixed(0)} s; floor ${seconds(sweep.floor.cpu_ms)} s CPU / ${seconds(sweep.floor.wall_ms)} s wall (runs: ${sweep.floor_runs.map((r) => seconds(r.cpu_ms)).join(", ")} s CPU)`,
      "",
      table(
        ["preset", "CPU s", "wall s", "CPU / floor", "node CPU / floor", "wall / floor", "frames drawn", "drawn/s", "libass CPU / floor", "ours / libass CPU"],
        sweep.runs.map((run) => [
          run.preset,
          seconds(run.cpu_ms),
          seconds(run.wall_ms),
          cpuRatio(run),
          nodeRatio(run, sweep),
          ratio(run.wall_ratio_to_floor),
          run.frames_drawn,
          run.frames_per_second ?? "–",
          optionalRatio(libassToFloor(sweep, run)),
          `${optionalRatio(oursToLibass(run))}${run.libass?.left_out ? " ¹" : ""}`,
        ]),
      ),
      "",
    );
    const leftOut = sweep.runs.filter((run) => run.libass?.left_out);
    if (leftOut.length > 0) {
      parts.push(`¹ The ASS script leaves out ${leftOut.map((run) => `${run.preset}: ${run.libass!.left_out}`).join("; ")}.`, "");
    }
  }
  parts.push(
    "## Speech recognition",
    "",
    table(
      ["engine", "model", "provider", "threads", "audio s", "wall s", "RTF", "words", "WER ¹"],
      result.asr.map((run) => [
        run.engine,
        run.model,
        run.provider,
        run.threads,
        run.audio_seconds.toFixed(1),
        seconds(run.wall_ms),
        run.rtf.toFixed(3),
        run.words,
        run.wer?.toFixed(3) ?? "–",
      ]),
    ),
    "",
    "¹ Against the part of the clip's flite narration it holds: synthetic speech, so a check that the engine works, not its accuracy on real speech.",
    "",
  );
  if (result.api) {
    parts.push(
      "## API (autocannon, 10 connections, one account)",
      "",
      table(["scenario", "req/s", "p50 ms", "p99 ms"], result.api.map((s) => [s.name, s.requests_per_second, s.p50_ms, s.p99_ms])),
      "",
    );
  }
  parts.push(
    "## Capacity",
    "",
    table(["setup", "kind", "60 s videos / hour", "600 s videos / hour", "basis"], result.capacity.map((row) => [row.setup, row.kind, row.videos_per_hour_60s, row.videos_per_hour_600s, row.basis])),
    "",
    "Projections are arithmetic on the stated assumptions, not measurements. H100 and H200 have no NVENC encoder: there the encode runs on the CPU (libx264) or on a separate NVENC-capable card.",
    "",
  );
  return parts.join("\n");
}

/** Where each job's CPU went, part by part (jobs measured with the parts only), and the floor's CPU beside it. */
function jobCpuParts(jobs: BenchResult["jobs"]): string[] {
  const measured = jobs.filter((job) => job.cpu_parts_ms !== undefined);
  if (measured.length === 0) return [];
  const names = [...new Set(measured.flatMap((job) => Object.keys(job.cpu_parts_ms!)))].sort();
  const label = (job: BenchResult["jobs"][number]) => `${job.clip.orientation} ${job.clip.duration_seconds.toFixed(0)} s`;
  return [
    "Where each job's CPU went (s): the service's node process (API and worker), each process under it, and the ffmpeg and ffprobe runs by what they were for (`tools:`; timed by wrappers the benchmark gives the service, whose own time is what node reaped beside them).",
    "",
    table(
      ["part", ...measured.map(label)],
      [
        ...names.map((name) => [name, ...measured.map((job) => seconds(job.cpu_parts_ms![name] ?? 0))]),
        ["job CPU", ...measured.map((job) => seconds(job.cpu_ms ?? 0))],
        ["floor CPU", ...measured.map((job) => seconds(job.floor.cpu_ms))],
      ],
    ),
    "",
  ];
}
