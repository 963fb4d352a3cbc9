import { readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";

/** May return a promise; a rejection answers 500 (or drops the connection once headers are out). */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface LoopbackHttpsServer {
  /** e.g. https://127.0.0.1:43123 */
  origin: string;
  url(path: string): string;
  route(path: string, handler: RouteHandler): void;
  /** Requests that reached `path` so far, routed or not. */
  hits(path: string): number;
  /** The tests' CA certificate, which signs this server's. */
  caCert: Buffer;
  close(): Promise<void>;
}

/**
 * A real HTTPS server on 127.0.0.1 (a free port) with the server certificate of the tests' CA, which
 * `npm test` makes and names in TEST_CA_DIR (NODE_EXTRA_CA_CERTS makes every process of the run trust
 * it). The media tests have a richer one (@caption/gpu-worker/testing); the control plane may not
 * depend on the worker, and its tests only need routes.
 */
export async function startLoopbackHttpsServer(): Promise<LoopbackHttpsServer> {
  const dir = process.env.TEST_CA_DIR;
  if (!dir) throw new Error("TEST_CA_DIR is not set: run tests with `npm test`, which makes the test CA");
  const [key, cert, caCert] = await Promise.all(["server.key", "server.crt", "ca.crt"].map((file) => readFile(path.join(dir, file))));
  const routes = new Map<string, RouteHandler>();
  const hits = new Map<string, number>();
  const server = createServer({ key, cert }, (req, res) => {
    const pathname = new URL(req.url ?? "/", "https://test.invalid").pathname;
    hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
    const handler = routes.get(pathname);
    if (!handler) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    Promise.resolve()
      .then(() => handler(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (urlPath) => new URL(urlPath, origin).toString(),
    route: (urlPath, handler) => void routes.set(urlPath, handler),
    hits: (urlPath) => hits.get(urlPath) ?? 0,
    caCert: caCert as Buffer,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
