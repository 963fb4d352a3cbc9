import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { metrics } from "@opentelemetry/api";
import { createServer } from "node:net";
import { parseEnv } from "../config/env.ts";
import { metricsListenAt, startMetricsServer, type MetricsServer } from "./metrics-server.ts";
import { startTelemetry, type Telemetry } from "./telemetry.ts";

let telemetry: Telemetry;
let server: MetricsServer;

before(async () => {
  telemetry = startTelemetry({ serviceName: "metrics-server-test", otlp: false });
  server = await startMetricsServer(telemetry, { port: 0, host: "127.0.0.1" });
});
after(async () => {
  await server?.close();
  await telemetry?.shutdown();
});

test("GET /metrics serves the Prometheus text of this process's instruments", async () => {
  metrics.getMeter("test").createCounter("caption.test.events", { unit: "{event}" }).add(3, { kind: "demo" });
  const response = await fetch(server.url);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  assert.match(text, /^# TYPE caption_test_events_total counter$/m);
  assert.match(text, /^caption_test_events_total\{kind="demo",[^}]*\} 3$/m);
  assert.match(text, /^target_info\{[^}]*service_name="metrics-server-test"/m);
});

test("other paths are 404 and other methods 405", async () => {
  assert.equal((await fetch(server.url.replace("/metrics", "/other"))).status, 404);
  const post = await fetch(server.url, { method: "POST" });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
});

test("a second start in the same process is refused", () => {
  assert.throws(() => startTelemetry({ serviceName: "again", otlp: false }), /already started/);
});

test("the listener binds to loopback unless METRICS_HOST says otherwise, whatever HOST the API listens on", async () => {
  const free = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const where = metricsListenAt(parseEnv({ HOST: "0.0.0.0", METRICS_PORT: String(free) }));
  assert.deepEqual(where, { port: free, host: "127.0.0.1" });
  assert.deepEqual(metricsListenAt(parseEnv({ HOST: "127.0.0.1", METRICS_HOST: "0.0.0.0" })), { port: 9464, host: "0.0.0.0" });
  assert.equal(metricsListenAt(parseEnv({ METRICS_PORT: "0" })), false);
  // The worker and the API start their listener from exactly this.
  await server.close();
  server = await startMetricsServer(telemetry, where || { port: 0, host: "0.0.0.0" });
  assert.equal((await fetch(server.url)).status, 200);
});
