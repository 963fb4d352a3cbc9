import assert from "node:assert/strict";
import { text } from "node:stream/consumers";
import { after, before, describe, test } from "node:test";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { postWebhook, type WebhookPostOptions } from "./webhook-post.ts";

// The send path of a webhook against a real HTTPS server on loopback (the tests' CA, trusted through
// NODE_EXTRA_CA_CERTS as the API trusts it): the SSRF policy applies at every attempt, not only when
// the endpoint is registered; redirects are failures and never followed; a receiver's answer is read
// only so far.

let server: TestHttpsServer;
const received: string[] = [];

before(async () => {
  server = await startTestHttpsServer();
  server.route("/hook", async (req, res) => {
    received.push(await text(req));
    res.writeHead(204).end();
  });
  server.route("/target", (_req, res) => void res.writeHead(204).end());
});
after(() => server?.close());

const BODY = '{"type":"job.completed"}';
const HEADERS = { "webhook-id": "evt_1", "webhook-timestamp": "1700000000", "webhook-signature": "v1,x" };
// Long enough that an attempt ending by its timeout could not pass for one that ended otherwise.
const options = (allowPrivateAddresses: boolean): WebhookPostOptions => ({ timeoutMs: 60_000, allowPrivateAddresses });
const port = () => new URL(server.origin).port;

describe("the SSRF policy at send time", () => {
  test("with private addresses allowed (the tests' setting) the receiver gets the body: the control case", async () => {
    const result = await postWebhook(server.url("/hook"), HEADERS, BODY, options(true));
    assert.deepEqual(result, { statusCode: 204, error: null });
    assert.equal(received.at(-1), BODY);
  });

  for (const [name, host, reason] of [
    ["a name that resolves to loopback (said without its address)", "localhost", /^localhost resolves to a loopback address, which is not allowed$/],
    ["a loopback literal", "127.0.0.1", /points to a loopback address 127\.0\.0\.1, which is not allowed/],
    ["an IPv6 loopback literal", "[::1]", /points to a loopback address ::1, which is not allowed/],
  ] as const) {
    test(`${name} is refused at send time, before any connection`, async () => {
      const before = server.hits("/hook");
      const result = await postWebhook(`https://${host}:${port()}/hook`, HEADERS, BODY, options(false));
      assert.equal(result.statusCode, null);
      assert.match(result.error ?? "", reason);
      assert.equal(server.hits("/hook"), before, "the receiver was never reached");
    });
  }

  test("a private address is refused, a non-HTTPS URL too", async () => {
    // Refused by the policy before any connection is tried, so the address need not exist.
    const privateResult = await postWebhook("https://10.20.30.40/hook", HEADERS, BODY, options(false));
    assert.match(privateResult.error ?? "", /private address 10\.20\.30\.40, which is not allowed/);
    const plain = await postWebhook(`http://127.0.0.1:${port()}/hook`, HEADERS, BODY, options(true));
    assert.match(plain.error ?? "", /Only HTTPS webhook URLs/);
  });
});

describe("redirects", () => {
  for (const status of [301, 302, 303, 307, 308]) {
    test(`a ${status} is a failed attempt and its Location is never fetched`, async () => {
      const path = `/redirect-${status}`;
      server.route(path, (_req, res) => void res.writeHead(status, { location: server.url("/target") }).end());
      const targetHits = server.hits("/target");
      const result = await postWebhook(server.url(path), HEADERS, BODY, options(true));
      assert.equal(result.statusCode, status);
      assert.match(result.error ?? "", new RegExp(`HTTP ${status}; redirects are not followed`));
      assert.equal(server.hits(path), 1);
      assert.equal(server.hits("/target"), targetHits, "the redirect target was never requested");
    });
  }
});

describe("the receiver's answer", () => {
  test("an endless response body is read only up to a cap: the attempt ends with the status, not the timeout", async () => {
    let hungUp: Promise<boolean> | undefined;
    server.route("/endless", (req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = Buffer.alloc(64 * 1024, "x");
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", pump);
      res.on("error", () => undefined);
      hungUp = new Promise((resolve) => res.on("close", () => resolve(!res.writableFinished)));
      pump();
    });
    const result = await postWebhook(server.url("/endless"), HEADERS, BODY, options(true));
    assert.deepEqual(result, { statusCode: 200, error: null });
    // The body never ends, so only a sender that stopped reading and hung up gets here.
    assert.equal(await hungUp, true, "the sender closed the connection mid-body");
  });

  test("a large error page is capped the same way and the attempt fails with its status", async () => {
    server.route("/big-error", (req, res) => {
      req.resume();
      res.writeHead(500, { "content-type": "text/html" });
      res.on("error", () => undefined);
      const chunk = Buffer.alloc(64 * 1024, "e");
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on("drain", pump);
      pump();
    });
    const result = await postWebhook(server.url("/big-error"), HEADERS, BODY, options(true));
    assert.deepEqual(result, { statusCode: 500, error: "the receiver answered HTTP 500" });
  });
});
