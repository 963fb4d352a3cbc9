import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { metrics, trace } from "@opentelemetry/api";
import { parseEnv } from "../config/env.ts";
import { startTelemetry } from "./telemetry.ts";
import { telemetryOptionsFromEnv } from "./telemetry-env.ts";

test("OTLP export is on only when OTEL_EXPORTER_OTLP_ENDPOINT is set", () => {
  assert.equal(telemetryOptionsFromEnv(parseEnv({}), "svc").otlp, false);
  assert.equal(telemetryOptionsFromEnv(parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }), "svc").otlp, true);
  assert.throws(() => parseEnv({ OTEL_TRACES_SAMPLER: "sometimes" }), /OTEL_TRACES_SAMPLER/);
  assert.throws(() => parseEnv({ METRICS_PORT: "70000" }), /METRICS_PORT/);
});

test("traces and metrics reach an OTLP/HTTP collector at the configured endpoint", async () => {
  const received: { path: string; contentType: string; bytes: number }[] = [];
  const collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", bytes: Buffer.concat(chunks).length });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as { port: number };
  // The exporters read the standard variables themselves, as they do in production.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  const env = parseEnv();
  const telemetry = startTelemetry(telemetryOptionsFromEnv(env, "otlp-test"));
  try {
    trace.getTracer("test").startSpan("exported").end();
    metrics.getMeter("test").createCounter("caption.test.exported").add(1);
  } finally {
    await telemetry.shutdown();
    collector.close();
  }
  const paths = received.map((r) => r.path).sort();
  assert.deepEqual(paths, ["/v1/metrics", "/v1/traces"]);
  for (const request of received) {
    assert.equal(request.contentType, "application/json");
    assert.ok(request.bytes > 0);
  }
});
