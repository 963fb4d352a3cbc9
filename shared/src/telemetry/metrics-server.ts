import { createServer } from "node:http";
import { PROMETHEUS_CONTENT_TYPE, type Telemetry } from "./telemetry.ts";

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Where `GET /metrics` listens: METRICS_PORT on METRICS_HOST (loopback by default), never HOST; false when METRICS_PORT is 0. */
export function metricsListenAt(env: { METRICS_PORT: number; METRICS_HOST: string }): { port: number; host: string } | false {
  return env.METRICS_PORT === 0 ? false : { port: env.METRICS_PORT, host: env.METRICS_HOST };
}

/** A listener that serves only `GET /metrics`, for processes without an HTTP API (the worker). Port 0 picks a free one. */
export async function startMetricsServer(telemetry: Pick<Telemetry, "prometheusText">, options: { port: number; host: string }): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" }).end("method not allowed\n");
      return;
    }
    telemetry.prometheusText().then(
      (text) => response.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" }).end(request.method === "HEAD" ? undefined : text),
      (error: unknown) => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics collection failed: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port, options.host, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    url: `http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
