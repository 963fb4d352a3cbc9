import type { StageName } from "@caption/shared/telemetry/caption-metrics";
import { libassToFloor, type BenchResult } from "./bench-result.ts";
import { PIPELINE_TARGETS, renderTargetFor } from "./pipeline-targets.ts";

export const STAGE_ORDER: readonly StageName[] = ["ingest", "inspect", "transcribe", "render", "store", "charge"];
const STAGE_COLORS: Record<StageName, string> = {
  ingest: "#8ecae6",
  inspect: "#219ebc",
  transcribe: "#ffb703",
  render: "#fb8500",
  store: "#6a994e",
  charge: "#386641",
};
const WIDTH = 860;
const LEFT = 250;
const PLOT = WIDTH - LEFT - 30;
const ROW = 26;
const FONT = `font-family="sans-serif" font-size="12"`;

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fixed = (n: number) => n.toFixed(1);

function axis(top: number, height: number, max: number, x: (v: number) => number, unit: string): string[] {
  const step = max > 4 ? 1 : max > 2 ? 0.5 : 0.25;
  const ticks: string[] = [];
  for (let v = 0; v <= max + 1e-9; v += step) {
    ticks.push(`<line x1="${fixed(x(v))}" y1="${top}" x2="${fixed(x(v))}" y2="${top + height}" stroke="#ddd"/>`);
    ticks.push(`<text x="${fixed(x(v))}" y="${top + height + 14}" text-anchor="middle" ${FONT}>${v}${unit}</text>`);
  }
  return ticks;
}

function marker(x: number, top: number, height: number, color: string, label: string, dash = ""): string {
  return `<line x1="${fixed(x)}" y1="${top - 4}" x2="${fixed(x)}" y2="${top + height}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ""}><title>${escape(label)}</title></line>`;
}

/**
 * Two panels: each whole job's stages stacked, in multiples of its floor (with the floor + ASR budget marked),
 * and each preset's render+encode CPU time as a multiple of the floor (with the target marked).
 */
export function stageChartSvg(result: BenchResult): string {
  const parts: string[] = [];
  let y = 30;
  parts.push(`<text x="10" y="20" ${FONT} font-weight="bold">Whole job, stage by stage, in multiples of the plain re-encode (floor)</text>`);
  const jobMax = Math.max(2, ...result.jobs.map((job) => job.wall_ms / job.floor.wall_ms)) * 1.05;
  const jobX = (v: number) => LEFT + (v / jobMax) * PLOT;
  const jobsTop = y;
  for (const job of result.jobs) {
    const label = `${job.clip.orientation} ${job.clip.duration_seconds.toFixed(0)} s ${job.preset}`;
    parts.push(`<text x="${LEFT - 8}" y="${y + 16}" text-anchor="end" ${FONT}>${escape(label)}</text>`);
    const bar = (stage: StageName, from: number, share: number, height: number) =>
      `<rect x="${fixed(jobX(from))}" y="${y + 4}" width="${fixed(jobX(from + share) - jobX(from))}" height="${height}" fill="${STAGE_COLORS[stage]}"><title>${stage}: ${((job.stage_ms[stage] ?? 0) / 1000).toFixed(1)} s</title></rect>`;
    const shareOf = (stage: StageName) => (job.stage_ms[stage] ?? 0) / job.floor.wall_ms;
    let at = 0;
    let renderStart = 0;
    for (const stage of STAGE_ORDER) {
      if (stage === "render") renderStart = at;
      // Recognition runs beside the render: drawn below as a thin bar over the render's start, not a stage before it.
      if (stage === "transcribe" || shareOf(stage) <= 0) continue;
      parts.push(bar(stage, at, shareOf(stage), ROW - 8));
      at += shareOf(stage);
    }
    if (shareOf("transcribe") > 0) parts.push(bar("transcribe", renderStart, shareOf("transcribe"), (ROW - 8) / 3));
    const overhead = job.wall_ms / job.floor.wall_ms - at;
    if (overhead > 0) parts.push(`<rect x="${fixed(jobX(at))}" y="${y + 4}" width="${fixed(jobX(at + overhead) - jobX(at))}" height="${ROW - 8}" fill="#bbb"><title>queue, polling and API: ${((job.wall_ms - at * job.floor.wall_ms) / 1000).toFixed(1)} s</title></rect>`);
    parts.push(marker(jobX(1), y + 4, ROW - 8, "#333", "the floor"));
    parts.push(marker(jobX(PIPELINE_TARGETS.jobToFloor), y + 4, ROW - 8, "#d00", `target: ${PIPELINE_TARGETS.jobToFloor} × floor`, "4 3"));
    y += ROW;
  }
  parts.push(...axis(jobsTop, y - jobsTop, jobMax, jobX, "×"));
  y += 22;
  let legendX = LEFT;
  for (const stage of [...STAGE_ORDER, "other" as const]) {
    parts.push(`<rect x="${legendX}" y="${y}" width="12" height="12" fill="${stage === "other" ? "#bbb" : STAGE_COLORS[stage]}"/><text x="${legendX + 16}" y="${y + 10}" ${FONT}>${stage}</text>`);
    legendX += 82;
  }
  y += 18;
  parts.push(`<text x="${LEFT}" y="${y + 10}" ${FONT}>thin bar: recognition, beside the render; black line: the floor; dashed red: ${PIPELINE_TARGETS.jobToFloor} × floor (the target)</text>`);
  y += 40;

  parts.push(`<text x="10" y="${y}" ${FONT} font-weight="bold">Render + encode CPU time per preset, in multiples of the floor</text>`);
  y += 16;
  parts.push(`<text x="10" y="${y}" ${FONT}>dotted: the target for presets still between words, ${PIPELINE_TARGETS.renderToFloorStill} ×; dashed: for animated ones, ${PIPELINE_TARGETS.renderToFloorAnimated} ×</text>`);
  y += 10;
  const ratios = result.presets.flatMap((sweep) => sweep.runs.flatMap((run) => [run.cpu_ratio_to_floor, libassToFloor(sweep, run) ?? 0]));
  const presetMax = Math.max(1.3, ...ratios) * 1.05;
  const presetX = (v: number) => LEFT + (v / presetMax) * PLOT;
  for (const sweep of result.presets) {
    const top = y;
    const rows = sweep.runs.flatMap((run) => {
      const libass = libassToFloor(sweep, run);
      return [
        { label: run.preset, value: run.cpu_ratio_to_floor, color: run.cpu_ratio_to_floor <= renderTargetFor(run.preset) ? "#219ebc" : "#d62828" },
        ...(libass === null ? [] : [{ label: `libass (${run.preset})`, value: libass, color: "#999" }]),
      ];
    });
    parts.push(`<text x="10" y="${y + 14}" ${FONT} font-style="italic">${sweep.clip.orientation} ${sweep.clip.duration_seconds.toFixed(0)} s</text>`);
    for (const row of rows) {
      parts.push(`<text x="${LEFT - 8}" y="${y + 14}" text-anchor="end" ${FONT}>${escape(row.label)}</text>`);
      parts.push(`<rect x="${LEFT}" y="${y + 3}" width="${fixed(presetX(row.value) - LEFT)}" height="${ROW - 10}" fill="${row.color}"><title>${row.value.toFixed(3)} ×</title></rect>`);
      parts.push(`<text x="${fixed(presetX(row.value) + 4)}" y="${y + 14}" ${FONT}>${row.value.toFixed(2)}</text>`);
      y += ROW - 6;
    }
    parts.push(...axis(top, y - top, presetMax, presetX, "×"));
    parts.push(marker(presetX(PIPELINE_TARGETS.renderToFloorStill), top, y - top, "#d00", `target ${PIPELINE_TARGETS.renderToFloorStill} ×`, "2 3"));
    parts.push(marker(presetX(PIPELINE_TARGETS.renderToFloorAnimated), top, y - top, "#d00", `target ${PIPELINE_TARGETS.renderToFloorAnimated} ×`, "4 3"));
    y += 30;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}"><rect width="100%" height="100%" fill="#fff"/>${parts.join("")}</svg>\n`;
}
