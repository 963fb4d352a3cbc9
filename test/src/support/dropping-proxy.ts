import { createServer, Socket } from "node:net";

export interface DroppingProxy {
  /** `http://127.0.0.1:<port>`: what to use in place of the target's origin. */
  origin: string;
  /** Connections cut so far (0 or 1). */
  cuts: number;
  /** Bytes passed on to the target, over every connection. */
  upstreamBytes: number;
  /** Stops taking connections (those open are left to end). */
  close(): void;
}

/**
 * A loopback TCP proxy to `target` that cuts, once, the first connection to carry more than `cutAfter` bytes
 * upstream (client and target both see the connection drop); every other connection is passed through.
 */
export async function droppingProxy(target: URL, cutAfter: number): Promise<DroppingProxy> {
  const server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(target.port), target.hostname);
    let sent = 0;
    client.on("data", (chunk: Buffer) => {
      sent += chunk.length;
      if (proxy.cuts === 0 && sent > cutAfter) {
        proxy.cuts += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      proxy.upstreamBytes += chunk.length;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const proxy: DroppingProxy = { origin: "", cuts: 0, upstreamBytes: 0, close: () => server.close() };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return proxy;
}
