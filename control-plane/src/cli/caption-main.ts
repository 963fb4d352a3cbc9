// The caption command (entry point: caption.ts): caption one video and write its five files, against
// CAPTION_API_URL or the embedded service.
import path from "node:path";
import { parseEnv } from "@caption/shared/config/env";
import { SAME_REQUEST_MS } from "@caption/shared/runtime/shutdown-signals";
import { CaptionApiError } from "../client/api-client.ts";
import { parseCaptionArgs } from "../client/caption-args.ts";
import { CaptionCanceled, inputFileSize, runCaption } from "../client/caption-run.ts";
import { ProgressReporter } from "../client/progress-reporter.ts";
import { outcomeJson, summaryLines } from "../client/summary.ts";
import { openServiceSession, type ServiceSession } from "../client/service-session.ts";

// npm runs scripts from the package root and says where its caller was.
const cwd = process.env.INIT_CWD ?? process.cwd();
const options = parseCaptionArgs(process.argv.slice(2), cwd);
if (typeof options === "number") process.exit(options);
const json = options.json;

const started = performance.now();
const wall = () => (performance.now() - started) / 1000;
const stderr = process.stderr;
const reporter = new ProgressReporter(stderr, options.json ? "quiet" : stderr.isTTY ? "tty" : "plain");
const interrupt = new AbortController();
let firstInterrupt: number | undefined;
process.on("SIGINT", () => {
  const now = performance.now();
  if (firstInterrupt === undefined) {
    firstInterrupt = now;
    reporter.note("Ctrl-C: canceling…");
    interrupt.abort();
    // npm forwards the terminal's Ctrl-C that already reached this process: the same request twice.
  } else if (now - firstInterrupt > SAME_REQUEST_MS) process.exit(130);
});
process.on("SIGTERM", () => interrupt.abort());

let session: ServiceSession | undefined;
let code = 0;
try {
  if (options.input.kind === "file") await inputFileSize(options.input.path);
  const dataDir = path.resolve(parseEnv().DATA_DIR);
  session = await openServiceSession({
    apiUrl: process.env.CAPTION_API_URL,
    apiKey: process.env.CAPTION_API_KEY,
    dataDir,
    databaseUrl: process.env.DATABASE_URL,
    newKey: options.newKey,
    onNote: (message) => reporter.note(message),
    onStarting: () => reporter.note(`starting the embedded caption service (DATA_DIR ${dataDir})…`),
  });
  const serviceSeconds = Number(wall().toFixed(2));
  reporter.note(session.mode === "remote" ? `service ${session.api.baseUrl}` : `service ${session.mode === "joined" ? "joined" : "ready"} at ${session.api.baseUrl} (${wall().toFixed(1)} s)`);
  const result = await runCaption(options, session.api, reporter, cwd, interrupt.signal);
  const outcome = { ...result, wall_seconds: Number(wall().toFixed(2)), service_seconds: serviceSeconds, service: session.mode };
  process.stdout.write(options.json ? `${outcomeJson(outcome)}\n` : summaryLines(outcome, cwd).join("\n") + "\n");
} catch (error) {
  reporter.stop();
  code = report(error);
} finally {
  await session?.close();
}
process.exit(code);

function report(error: unknown): number {
  if (error instanceof CaptionCanceled) {
    const line = error.jobId === undefined ? "canceled: no job was submitted" : `canceled job ${error.jobId} (now ${error.jobStatus}); nothing is charged for a canceled job`;
    if (json) process.stdout.write(`${outcomeJson({ error: { code: "CANCELED", message: line }, job_id: error.jobId ?? null })}\n`);
    else stderr.write(`${line}\n`);
    return 130;
  }
  const known = error instanceof CaptionApiError;
  const codeName = known ? error.code : "INTERNAL_ERROR";
  const message = error instanceof Error ? error.message : String(error);
  if (json) process.stdout.write(`${outcomeJson({ error: { code: codeName, message } })}\n`);
  else stderr.write(`error ${codeName}: ${message}\n`);
  return 1;
}
