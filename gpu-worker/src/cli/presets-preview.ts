// `npm run presets:preview -- --preset karaoke [--orientation portrait|landscape] [--out FILE]`:
// a ~8 s sample video of flite speech, transcribed by the worker's speech engine and captioned with the preset.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { parseEnv } from "@caption/shared/config/env";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { loadSpeechEngine } from "../asr/engine-registry.ts";
import { modelFolder } from "../asr/model-folder.ts";
import { detectHardwarePaths } from "../media/hardware-paths.ts";
import { renderPresetPreview, type PreviewStage } from "../tools/preset-preview.ts";
import { ORIENTATIONS, type Orientation } from "../tools/sample-frame.ts";

const USAGE = `usage: presets-preview --preset ID [--orientation portrait|landscape] [--out FILE]
  --preset ID      one of: ${PRESET_IDS.join(", ")}
  --orientation    portrait 1080x1920 (default) or landscape 1920x1080
  --out FILE       default: .tmp/previews/<preset>-<orientation>.mp4 in the repository
The speech engine is chosen as the worker chooses it (ASR_ENGINE, ASR_MODEL_DIR, DATA_DIR).`;
const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

const isPreset = (value: string): value is PresetId => (PRESET_IDS as readonly string[]).includes(value);
const isOrientation = (value: string): value is Orientation => Object.hasOwn(ORIENTATIONS, value);

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        preset: { type: "string" },
        orientation: { type: "string", default: "portrait" },
        out: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  const { preset, orientation } = values;
  if (preset === undefined || !isPreset(preset) || !isOrientation(orientation)) {
    process.stderr.write(`${preset === undefined ? "--preset is required" : `unknown preset or orientation: ${preset} ${orientation}`}\n${USAGE}\n`);
    return 2;
  }
  const fileStem = `${preset.replace("&", "-and-")}-${orientation}`;
  const out = values.out === undefined
    ? path.join(REPO_ROOT, ".tmp", "previews", `${fileStem}.mp4`)
    : path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out);
  await mkdir(path.dirname(out), { recursive: true });

  // A command-line entry point: the environment is read here, once.
  const env = parseEnv();
  const logger = createCliLogger(env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("interrupted"));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);

  const engine = await loadSpeechEngine({ engine: env.ASR_ENGINE, modelDir: modelFolder(env), provider: env.ASR_PROVIDER, logger, signal: controller.signal });
  try {
    const { encoder, decoder } = await detectHardwarePaths({ binary: env.FFMPEG_PATH, logger, signal: controller.signal });
    process.stderr.write(`${preset} (${orientation}): speech engine ${engine.name}, decoder ${decoder.decoder}, encoder ${encoder.encoder}\n`);
    const result = await renderPresetPreview({
      preset,
      video: ORIENTATIONS[orientation],
      outputPath: out,
      engine,
      encoder,
      signal: controller.signal,
      logger,
      ffmpegBinary: env.FFMPEG_PATH,
      onProgress: progressLine(),
    });
    process.stderr.write(`\n${result.words.length} words in ${result.durationSeconds.toFixed(1)} s: ${result.words.map((w) => w.text).join(" ")}\n`);
  } finally {
    await engine.close();
  }
  process.stdout.write(`${out}\n`);
  return 0;
}

/** One updating status line on a terminal; a line per stage and quarter elsewhere. */
function progressLine(): (stage: PreviewStage, fraction: number) => void {
  const tty = process.stderr.isTTY;
  let last = "";
  return (stage, fraction) => {
    const percent = Math.floor(fraction * 100);
    const shown = tty ? `${stage} ${percent}%` : `${stage} ${Math.floor(percent / 25) * 25}%`;
    if (shown === last) return;
    process.stderr.write(tty ? `\r\x1b[2K${shown}` : `${last === "" ? "" : "\n"}${shown}`);
    last = shown;
  };
}

process.exitCode = await main(process.argv.slice(2));
