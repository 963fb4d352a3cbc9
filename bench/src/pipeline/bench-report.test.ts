import assert from "node:assert/strict";
import { test } from "node:test";
import { Value } from "@sinclair/typebox/value";
import { BenchResultSchema, type AsrRun, type BenchResult, type JobRun, type PresetSweep } from "./bench-result.ts";
import { capacityTable } from "./capacity.ts";
import { checkTargets } from "./pipeline-targets.ts";
import { stageChartSvg } from "./stage-chart-svg.ts";
import { summaryMarkdown } from "./summary-markdown.ts";

const asr: AsrRun[] = [{ engine: "pocketsphinx", model: "en-us", provider: "cpu", threads: 1, audio_seconds: 60, wall_ms: 12_000, rtf: 0.2, words: 150 }];
const job = (orientation: "portrait" | "landscape", seconds: number, wallMs: number): JobRun => ({
  clip: { orientation, width: orientation === "portrait" ? 1080 : 1920, height: orientation === "portrait" ? 1920 : 1080, duration_seconds: seconds },
  preset: "highlight",
  wall_ms: wallMs,
  stage_ms: { ingest: 100 * (seconds / 60), inspect: 50, transcribe: 12_000 * (seconds / 60), render: 22_000 * (seconds / 60), store: 30, charge: 5 },
  peak_rss_bytes: 400 * 2 ** 20,
  rss_at_peak: { node: 300 * 2 ** 20, ffmpeg: 100 * 2 ** 20 },
  frames_drawn: 300,
  floor: { wall_ms: 21_000 * (seconds / 60), cpu_ms: 40_000 * (seconds / 60) },
});
const sweep: PresetSweep = {
  clip: { orientation: "portrait", width: 1080, height: 1920, duration_seconds: 30 },
  floor: { wall_ms: 10_000, cpu_ms: 20_000 },
  floor_runs: [{ wall_ms: 10_000, cpu_ms: 20_000 }],
  runs: [
    // Rendered three times (--repeat 3): the median, each render's ratio, node's ratio to the floor runs beside its renders.
    {
      preset: "classic", wall_ms: 10_000, cpu_ms: 19_000, node_cpu_ms: 400, node_cpu_ratio_to_floor: 0.021, frames_drawn: 40, frames_per_second: 400,
      cpu_ratio_to_floor: 0.95, cpu_ratios: [0.97, 0.95, 0.9], wall_ratio_to_floor: 1, libass: null,
    },
    { preset: "highlight", wall_ms: 11_000, cpu_ms: 23_000, node_cpu_ms: 2_000, frames_drawn: 150, frames_per_second: 300, cpu_ratio_to_floor: 1.15, wall_ratio_to_floor: 1.1, libass: { wall_ms: 12_000, cpu_ms: 24_000, left_out: null } },
    { preset: "elegant", wall_ms: 11_000, cpu_ms: 22_000, frames_drawn: 900, frames_per_second: 300, cpu_ratio_to_floor: 1.1, wall_ratio_to_floor: 1.1, libass: { wall_ms: 10_000, cpu_ms: 20_000, left_out: "the rise (words only fade in)" } },
  ],
};

function result(jobs: JobRun[]): BenchResult {
  return {
    version: 1,
    mode: "quick",
    started_at: "2026-11-22T10:00:00.000Z",
    finished_at: "2026-11-22T10:08:00.000Z",
    command: "npm run bench",
    machine: { cpus: 2, cpu_model: "Test CPU", memory_gib: 24, node: "24.0.0", ffmpeg: "5.1", load_average_at_start: [1, 1, 1], load_average_at_end: [2, 2, 2] },
    encoder: "libx264",
    decoder: "software",
    asr,
    jobs,
    presets: [sweep],
    concurrent: [{ clip: job("portrait", 60, 0).clip, preset: "highlight", worker_concurrency: 2, jobs: 4, wall_ms: 120_000, videos_per_hour: 120 }],
    api: [{ name: "GET /v1/jobs/{id}", requests_per_second: 2000, p50_ms: 4, p99_ms: 14 }],
    targets: checkTargets({ jobs, presets: [sweep] }),
    capacity: capacityTable({ jobs, presets: [sweep], concurrent: [], encoder: "libx264" }),
  };
}

test("every preset, the libass comparison and each job are judged against their targets", () => {
  const checks = checkTargets({ jobs: [job("portrait", 60, 25_000), job("portrait", 600, 400_000)], presets: [sweep] });
  const byName = new Map(checks.map((c) => [c.name, c]));
  assert.equal(byName.get("render+encode classic / floor CPU (portrait 30 s)")?.pass, true);
  // highlight changes colour only when a word starts: held to 1.05; elegant's words float in every frame: 1.10.
  assert.equal(byName.get("render+encode highlight / floor CPU (portrait 30 s)")?.limit, 1.05);
  assert.equal(byName.get("render+encode highlight / floor CPU (portrait 30 s)")?.pass, false);
  assert.equal(byName.get("render+encode elegant / floor CPU (portrait 30 s)")?.limit, 1.1);
  assert.ok(Math.abs(byName.get("our highlight render / libass burn-in CPU (portrait 30 s)")!.measured - 23 / 24) < 1e-9);
  // libass drawing less than we do (an animation ASS cannot express) is no comparison.
  assert.equal(byName.has("our elegant render / libass burn-in CPU (portrait 30 s)"), false);
  assert.equal(byName.get("render+encode elegant / floor CPU (portrait 30 s)")?.pass, true);
  // 25 s against a 21 s floor: 1.19, within 1.30; 400 s against 210 s is not.
  const whole = byName.get("whole job / floor wall (portrait 60 s, highlight)")!;
  assert.ok(Math.abs(whole.measured - 25 / 21) < 1e-9);
  assert.equal(whole.pass, true);
  assert.equal(byName.get("whole job / floor wall (portrait 600 s, highlight)")?.pass, false);
  // Only the 600 s job is held to the memory target.
  assert.deepEqual(checks.filter((c) => c.name.startsWith("peak RSS")).map((c) => c.name), ["peak RSS of the job (portrait 600 s)"]);
});

test("capacity is measured where a job of that length ran and extrapolated otherwise", () => {
  const [measured] = capacityTable({ jobs: [job("portrait", 60, 36_000), job("portrait", 600, 360_000)], presets: [sweep], concurrent: [], encoder: "libx264" });
  assert.equal(measured?.kind, "measured");
  assert.equal(measured?.videos_per_hour_60s, 100);
  assert.equal(measured?.videos_per_hour_600s, 10);
  const rows = capacityTable({ jobs: [job("portrait", 60, 36_000)], presets: [sweep], concurrent: [], encoder: "libx264" });
  assert.equal(rows[0]?.kind, "extrapolated");
  assert.equal(rows[0]?.videos_per_hour_60s, 100);
  // Stages scale ×10 (charge does not), the 1.815 s of API overhead stays: 343.6 s.
  assert.ok(Math.abs(rows[0]!.videos_per_hour_600s - 10.5) < 0.05, String(rows[0]?.videos_per_hour_600s));
  assert.deepEqual(rows.slice(1).map((r) => r.kind), ["projection", "projection"]);
  assert.ok(rows.slice(1).every((r) => r.setup.startsWith("projection:") && r.basis.includes("beside the render")));
});

test("two jobs at a time: measured where that length ran so, else one-at-a-time scaled by the gain measured", () => {
  const jobs = [job("portrait", 60, 36_000), job("portrait", 600, 360_000)];
  const four = { clip: jobs[0]!.clip, preset: "highlight", worker_concurrency: 2, jobs: 4, wall_ms: 120_000, videos_per_hour: 120 };
  const [, concurrent] = capacityTable({ jobs, presets: [sweep], concurrent: [four], encoder: "libx264" });
  assert.match(concurrent!.setup, /2 jobs at a time \(WORKER_CONCURRENCY=2\)/);
  assert.equal(concurrent?.kind, "extrapolated");
  assert.equal(concurrent?.videos_per_hour_60s, 120);
  // 120 against 100 one at a time: a gain of 1.2, applied to the 10 600 s videos an hour.
  assert.equal(concurrent?.videos_per_hour_600s, 12);
  const two = { ...four, clip: jobs[1]!.clip, jobs: 2, wall_ms: 600_000, videos_per_hour: 12.5 };
  const [, both] = capacityTable({ jobs, presets: [sweep], concurrent: [four, two], encoder: "libx264" });
  assert.equal(both?.kind, "measured");
  assert.equal(both?.videos_per_hour_600s, 12.5);
});

test("the result matches its schema, and the report and chart show every job and preset", () => {
  // 52.5 s of CPU over 2 cores against a 21 s floor: no job could come in under 1.25 × the floor; an older result has no CPU time.
  const full = result([{ ...job("portrait", 60, 40_000), cpu_ms: 52_500 }, job("landscape", 60, 41_000)]);
  assert.ok(Value.Check(BenchResultSchema, full), JSON.stringify([...Value.Errors(BenchResultSchema, full)].slice(0, 2)));
  const markdown = summaryMarkdown(full, "chart.svg");
  for (const text of ["![stage breakdown](chart.svg)", "| portrait 1080x1920 60 s | highlight | 40.0 |", "| 21.0 | 1.90 | 52.5 | 40.0 | 1.25 | 400 | 300 |", "| 21.0 | 1.95 | – | 40.0 | – | 400 | 300 |", "least job / floor on 2 cores", "| highlight | 23.0 | 11.0 | 1.15 | 0.100 | 1.10 | 150 | 300 | 1.20 | 0.96 |", "| classic | 19.0 | 10.0 | 0.95 (0.97, 0.95, 0.90) | 0.021 | 1.00 | 40 |",
    "Each preset rendered several times (`--repeat`)", "| elegant | 22.0 | 11.0 | 1.10 | – | 1.10 | 900 | 300 | 1.00 | 1.10 ¹ |", "¹ The ASS script leaves out elegant: the rise (words only fade in).", "**FAIL**", "H100 and H200 have no NVENC"]) {
    assert.ok(markdown.includes(text), `missing ${text}`);
  }
  const svg = stageChartSvg(full);
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.equal((svg.match(/<svg/g) ?? []).length, 1);
  for (const text of ["portrait 60 s highlight", "landscape 60 s highlight", ">classic<", ">libass (highlight)<", ">libass (elegant)<", "target 1.05 ×", "target 1.1 ×", "target: 1.3 × floor"]) assert.ok(svg.includes(text), `missing ${text}`);
  // The over-target preset is drawn in the warning colour.
  assert.ok(svg.includes(`fill="#d62828"><title>1.150 ×`));
});
