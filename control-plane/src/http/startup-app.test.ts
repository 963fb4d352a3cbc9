import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { createStartupApp } from "./startup-app.ts";

describe("while the API waits for the database", () => {
  let server: Server;
  let url: string;
  before(async () => {
    const app = createStartupApp(pino({ level: "silent" }), { trustProxy: false });
    server = createServer(app.callback()).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test("it is alive but not ready, and every other request is 503 SERVICE_UNAVAILABLE with Retry-After", async () => {
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: "waiting for the database" });
    const job = await fetch(`${url}/v1/jobs/job_x`);
    assert.equal(job.status, 503);
    assert.equal(job.headers.get("retry-after"), "5");
    assert.equal(((await job.json()) as { error: { code: string } }).error.code, "SERVICE_UNAVAILABLE");
  });

  test("every response says nosniff, like the API proper", async () => {
    for (const path of ["/healthz", "/readyz", "/v1/usage"]) {
      assert.equal((await fetch(`${url}${path}`)).headers.get("x-content-type-options"), "nosniff", path);
    }
  });
});
