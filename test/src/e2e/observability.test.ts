import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { SpanKind } from "@opentelemetry/api";
import { AggregationTemporality, InMemoryMetricExporter, PeriodicExportingMetricReader, type DataPoint, type Histogram, type MetricData } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace";

// As `node --import …/register.ts` does in production: the loader hook and the instrumentations
// must be in place before koa, pg and http load, so the application is imported only after this.
await import("@caption/shared/telemetry/register");
const { startTelemetry } = await import("@caption/shared/telemetry/telemetry");
const { STAGE_NAMES } = await import("@caption/shared/telemetry/caption-metrics");
const { startTestService } = await import("../support/test-service.ts");
const { startTestHttpsServer } = await import("@caption/shared/testing/https-server");
const { makeSpeechVideo } = await import("@caption/gpu-worker/testing");

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const metricReader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const telemetry = startTelemetry({ serviceName: "caption-test", otlp: false, spanProcessors: [new SimpleSpanProcessor({ exporter: spans })], metricReaders: [metricReader] });

let service: Awaited<ReturnType<typeof startTestService>>;
let files: Awaited<ReturnType<typeof startTestHttpsServer>>;
let job: Awaited<ReturnType<typeof service.waitForJob>>;
let durationSeconds: number;
let jobSpan: ReadableSpan;

before(async () => {
  const source = await makeSpeechVideo({ text: "Tracing follows every job from request to result.", width: 640, height: 360, fps: 25, padSeconds: 0.5 });
  durationSeconds = source.durationSeconds;
  [service, files] = await Promise.all([startTestService(), startTestHttpsServer()]);
  files.serveFile("/traced.mp4", source.path, "video/mp4");
  const { api_key: key } = await service.createKey({ credits: 120 });
  const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/traced.mp4"), preset: "classic", max_duration_seconds: 60 });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  job = await service.waitForJob(key, submitted.body.id);
  assert.equal(job.status, "completed", JSON.stringify(job));
  // The job span ends just after the completing transaction the poll saw.
  jobSpan = await eventually(() => spans.getFinishedSpans().find((s) => s.name === "process caption-job" && s.attributes["caption.job.id"] === job.id));
});
after(async () => {
  await files?.close();
  await service?.close();
  await telemetry.shutdown();
});

test("the worker's job span continues the trace of the POST /v1/subtitles server span", () => {
  const finished = spans.getFinishedSpans();
  const server = finished.find((s) => s.kind === SpanKind.SERVER && s.attributes["http.route"] === "/v1/subtitles" && s.attributes["http.request.method"] === "POST");
  assert.ok(server, `no server span among ${finished.map((s) => s.name).join(", ")}`);
  assert.equal(server.name, "POST /v1/subtitles");
  assert.equal(jobSpan.kind, SpanKind.CONSUMER);
  assert.equal(jobSpan.spanContext().traceId, server.spanContext().traceId);
  assert.deepEqual(ancestry(jobSpan, finished).at(-1), server, "the job span descends from the server span");
});

test("each pipeline stage is a child span of the job span, in order, with the job's attributes", () => {
  const stages = spans.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === jobSpan.spanContext().spanId && s.attributes["caption.stage"] !== undefined);
  assert.deepEqual(stages.map((s) => s.name), [...STAGE_NAMES]);
  const startTimes = stages.map((s) => s.startTime[0] * 1e9 + s.startTime[1]);
  assert.deepEqual(startTimes, [...startTimes].sort((a, b) => a - b));
  for (const stage of stages) {
    assert.equal(stage.spanContext().traceId, jobSpan.spanContext().traceId);
    assert.equal(stage.attributes["caption.job.id"], job.id);
    assert.equal(stage.attributes["caption.preset"], "classic");
    assert.equal(stage.attributes["caption.asr.engine"], jobSpan.attributes["caption.asr.engine"]);
    if (stage.name !== "ingest") assert.ok(Math.abs(Number(stage.attributes["caption.video.duration"]) - durationSeconds) < 0.1, `${stage.name}: ${stage.attributes["caption.video.duration"]}`);
  }
  assert.ok(["pocketsphinx", "sherpa-onnx"].includes(String(jobSpan.attributes["caption.asr.engine"])));
});

test("database queries are spans inside the request and inside the stages", () => {
  const finished = spans.getFinishedSpans();
  const charge = finished.find((s) => s.name === "charge" && s.attributes["caption.job.id"] === job.id);
  assert.ok(charge);
  const queries = finished.filter((s) => s.attributes["db.system.name"] === "postgresql" && s.name.startsWith("pg.query"));
  assert.ok(queries.some((q) => ancestry(q, finished).includes(charge)), "the completing transaction is traced under the charge stage");
  const server = finished.find((s) => s.kind === SpanKind.SERVER && s.attributes["http.route"] === "/v1/subtitles");
  assert.ok(server && queries.some((q) => ancestry(q, finished).includes(server)), "the submission's queries are traced under its request");
});

test("metrics count one completed job, ceil(duration) credits and one observation per stage", async () => {
  const seconds = Math.ceil(durationSeconds);
  assert.equal(job.usage.billed_seconds, seconds);
  await metricReader.forceFlush();
  const collected = metricExporter.getMetrics().at(-1);
  assert.ok(collected);
  const all = collected.scopeMetrics.flatMap((scope) => scope.metrics);
  const metric = (name: string): MetricData => {
    const found = all.find((m) => m.descriptor.name === name);
    assert.ok(found, `metric ${name} missing`);
    return found;
  };
  const points = (name: string) => metric(name).dataPoints as DataPoint<number | Histogram>[];

  const transitions = Object.fromEntries(points("caption.jobs").map((p) => [p.attributes["caption.job.status"], p.value]));
  assert.deepEqual(transitions, { queued: 1, ingesting: 1, transcribing: 1, rendering: 1, completed: 1 });
  assert.equal(points("caption.credits.reserved")[0]?.value, seconds);
  assert.equal(points("caption.credits.charged")[0]?.value, seconds);

  const stageCounts = Object.fromEntries(points("caption.stage.duration").map((p) => [p.attributes["caption.stage"], (p.value as Histogram).count]));
  assert.deepEqual(stageCounts, Object.fromEntries(STAGE_NAMES.map((s) => [s, 1])));
  for (const name of ["caption.asr.real_time_factor", "caption.render.frames_per_second"]) {
    const [point, ...rest] = points(name);
    assert.equal(rest.length, 0, name);
    const histogram = point?.value as Histogram;
    assert.equal(histogram.count, 1, name);
    assert.ok((histogram.sum ?? 0) > 0, name);
  }
  assert.equal(points("caption.queue.depth")[0]?.value, 0);
  assert.equal(points("caption.queue.oldest_age")[0]?.value, 0);
});

test("GET /metrics on the API's own metrics listener serves the same figures as Prometheus text, without a trace of its own", async () => {
  assert.ok(service.api.metricsUrl);
  assert.notEqual(new URL(service.api.metricsUrl).port, new URL(service.url).port);
  assert.equal((await fetch(`${service.url}/metrics`)).status, 404, "the public port has no /metrics");
  const response = await fetch(service.api.metricsUrl);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  assert.match(text, /^caption_jobs_total\{caption_job_status="completed",[^}]*\} 1$/m);
  assert.match(text, new RegExp(`^caption_credits_charged_total\\{[^}]*\\} ${Math.ceil(durationSeconds)}$`, "m"));
  assert.match(text, /^caption_stage_duration_count\{caption_stage="render",[^}]*\} 1$/m);
  assert.match(text, /^caption_queue_depth\{[^}]*\} 0$/m);
  assert.match(text, /^http_server_request_duration_count\{[^}]*http_route="\/v1\/subtitles"[^}]*\} 1$/m);
  assert.ok(!spans.getFinishedSpans().some((s) => s.kind === SpanKind.SERVER && String(s.attributes["url.path"]).startsWith("/metrics")));
});

/** The chain of parents of `span` that were recorded, nearest first. */
function ancestry(span: ReadableSpan, finished: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(finished.map((s) => [s.spanContext().spanId, s]));
  const chain: ReadableSpan[] = [];
  for (let parent = byId.get(span.parentSpanContext?.spanId ?? ""); parent; parent = byId.get(parent.parentSpanContext?.spanId ?? "")) chain.push(parent);
  return chain;
}

async function eventually<T>(find: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("not seen in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
