import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { parseCommand } from "@caption/shared/runtime/command-line";

export const CAPTION_USAGE = `usage: npm run caption -- <file or https URL> [--preset P] [--style JSON] [--language xx] [--out DIR] [--json] [--new-key]
  <file>          a video on this machine (MP4, MOV or WebM), uploaded over tus; or an https:// URL the service downloads
  --preset P      one of ${PRESET_IDS.join(", ")} (default classic)
  --style JSON    style overrides, e.g. '{"text_color":"#FFEE00","position":"top"}'
  --language xx   the spoken language (two or three lowercase letters); omitted: detected
  --out DIR       where the five files go (default: next to the input; the current directory for a URL)
  --json          no progress, one JSON object on stdout at the end
  --new-key       make a new local account and key (36000 s of credit) instead of the one saved in DATA_DIR
environment: CAPTION_API_URL and CAPTION_API_KEY to use a running service; without them the embedded service runs for the command`;

export type CaptionInput = { kind: "file"; path: string } | { kind: "url"; url: string };

export interface CaptionOptions {
  input: CaptionInput;
  preset?: PresetId;
  style?: Record<string, unknown>;
  language?: string;
  /** Absolute; undefined: next to the input file (or the working directory for a URL). */
  outDir?: string;
  json: boolean;
  /** --new-key: a new local account and key, replacing the saved one. */
  newKey: boolean;
}

/**
 * The command line of `caption`, relative paths taken from `cwd` (npm runs scripts from the package root and
 * passes the caller's directory as INIT_CWD). A usage error prints the message and the usage and yields 2;
 * `--help` prints the usage and yields 0.
 */
export function parseCaptionArgs(args: string[], cwd: string): CaptionOptions | number {
  const parsed = parseCommand(
    {
      args,
      allowPositionals: true,
      strict: true,
      options: {
        preset: { type: "string" },
        style: { type: "string" },
        language: { type: "string" },
        out: { type: "string" },
        json: { type: "boolean" },
        "new-key": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    },
    CAPTION_USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const problem = (message: string) => {
    process.stderr.write(`${message}\n${CAPTION_USAGE}\n`);
    return 2;
  };
  if (positionals.length > 1) return problem("one video at a time");
  if (positionals[0] === undefined || positionals[0] === "") return problem("a video file or URL is required");
  const input = inputOf(positionals[0], cwd);
  if (typeof input === "string") return problem(input);
  if (values.preset !== undefined && !(PRESET_IDS as readonly string[]).includes(values.preset)) {
    return problem(`--preset ${values.preset} is not a preset; one of ${PRESET_IDS.join(", ")}`);
  }
  if (values.language !== undefined && !/^[a-z]{2,3}$/.test(values.language)) return problem(`--language ${values.language}: two or three lowercase letters (en, de, yue)`);
  let style: Record<string, unknown> | undefined;
  if (values.style !== undefined) {
    style = styleOf(values.style);
    if (style === undefined) return problem(`--style must be a JSON object, e.g. '{"text_color":"#FFEE00"}'`);
  }
  return {
    input,
    ...(values.preset === undefined ? {} : { preset: values.preset as PresetId }),
    ...(style === undefined ? {} : { style }),
    ...(values.language === undefined ? {} : { language: values.language }),
    ...(values.out === undefined || values.out === "" ? {} : { outDir: path.resolve(cwd, values.out) }),
    json: values.json === true,
    newKey: values["new-key"] === true,
  };
}

function inputOf(operand: string, cwd: string): CaptionInput | string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(operand)) {
    // The service downloads only over HTTPS; anything else would be refused after a round trip.
    return /^https:\/\//i.test(operand) ? { kind: "url", url: operand } : `${operand}: only https:// URLs can be downloaded by the service; give a file path to upload`;
  }
  return { kind: "file", path: path.resolve(cwd, operand) };
}

function styleOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
