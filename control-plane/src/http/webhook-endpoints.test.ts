import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// /v1/webhook_endpoints with the production SSRF policy (ALLOW_PRIVATE_VIDEO_URLS unset).

let t: TestApi;
let key: string;

before(async () => {
  t = await startTestApi();
  ({ api_key: key } = await t.createKey());
});
after(() => t.close());

const create = (body: unknown, apiKey = key) => t.request("POST", "/v1/webhook_endpoints", { key: apiKey, body });
const URL_OK = "https://hooks.example.com/captions";

// [name, body, accepted]
const BODIES: [string, unknown, boolean][] = [
  ["url only", { url: URL_OK }, true],
  ["url with every event", { url: URL_OK, events: ["job.completed", "job.failed", "job.canceled", "job.progress"] }, true],
  ["one event", { url: URL_OK, events: ["job.progress"] }, true],
  ["uppercase scheme, port, query", { url: "HTTPS://hooks.example.com:8443/in?token=abc" }, true],
  ["body is an array", [], false],
  ["body is a string", "x", false],
  ["url missing", {}, false],
  ["url null", { url: null }, false],
  ["url a number", { url: 42 }, false],
  ["url http", { url: "http://hooks.example.com/" }, false],
  ["url relative", { url: "/hooks" }, false],
  ["url 2049 characters", { url: `https://hooks.example.com/${"a".repeat(2049 - 26)}` }, false],
  ["url with credentials", { url: "https://user:pw@hooks.example.com/" }, false],
  ["unknown field", { url: URL_OK, secret: "mine" }, false],
  ["events empty", { url: URL_OK, events: [] }, false],
  ["events null", { url: URL_OK, events: null }, false],
  ["events unknown type", { url: URL_OK, events: ["job.started"] }, false],
  ["events repeated", { url: URL_OK, events: ["job.completed", "job.completed"] }, false],
  ["events not an array", { url: URL_OK, events: "job.completed" }, false],
];

describe("POST /v1/webhook_endpoints validation", () => {
  for (const [name, body, accepted] of BODIES) {
    test(name, async () => {
      const { api_key } = await t.createKey();
      const res = await create(body, api_key);
      if (accepted) {
        assert.equal(res.status, 201, JSON.stringify(res.body));
      } else {
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assertErrorShape(res.body, "INVALID_REQUEST");
      }
    });
  }

  test("a body that is not JSON is 400", async () => {
    const res = await t.request("POST", "/v1/webhook_endpoints", { key, rawBody: "url=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    assert.equal(res.status, 400);
    assertErrorShape(res.body, "INVALID_REQUEST");
  });
});

describe("SSRF policy of webhook URLs", () => {
  for (const url of ["https://127.0.0.1/hook", "https://10.1.2.3/hook", "https://192.168.0.10/hook", "https://169.254.169.254/latest", "https://[::1]/hook", "https://[fd00:ec2::254]/", "https://localhost/hook", "https://0.0.0.0/"]) {
    test(`refuses ${url}`, async () => {
      const res = await create({ url });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assertErrorShape(res.body, "INVALID_REQUEST");
      assert.match(res.body.error.message, /not allowed/);
    });
  }
});

describe("endpoints", () => {
  test("a disabled endpoint shows as such; POST …/enable enables it (write scope, the account's own only)", async () => {
    const { api_key, account_id } = await t.createKey();
    const created = (await create({ url: URL_OK }, api_key)).body;
    const reason = "every attempt failed since 2030-01-01T00:00:00.000Z (20 attempts)";
    await t.database.db.updateTable("webhook_endpoints").set({ disabled_at: new Date("2030-01-04T00:00:00.000Z"), disabled_reason: reason }).where("id", "=", created.id).execute();
    const [shown] = (await t.request("GET", "/v1/webhook_endpoints", { key: api_key })).body.webhook_endpoints;
    assert.deepEqual([shown.status, shown.disabled_at, shown.disabled_reason], ["disabled", "2030-01-04T00:00:00.000Z", reason]);
    const reader = await t.createKey({ scopes: ["subtitles:read"], accountId: account_id });
    const readOnly = await t.request("POST", `/v1/webhook_endpoints/${created.id}/enable`, { key: reader.api_key });
    assertErrorShape(readOnly.body, "INSUFFICIENT_SCOPE");
    const stranger = await t.createKey();
    const notMine = await t.request("POST", `/v1/webhook_endpoints/${created.id}/enable`, { key: stranger.api_key });
    assert.equal(notMine.status, 404);
    assertErrorShape(notMine.body, "NOT_FOUND");
    const enabled = await t.request("POST", `/v1/webhook_endpoints/${created.id}/enable`, { key: api_key });
    assert.equal(enabled.status, 200);
    assert.deepEqual(enabled.body, { id: created.id, url: URL_OK, events: created.events, status: "enabled", disabled_at: null, disabled_reason: null, created_at: created.created_at });
  });

  test("created with the terminal events and webhook_endpoint.disabled by default, enabled, and a secret shown once", async () => {
    const { api_key } = await t.createKey();
    const res = await create({ url: URL_OK }, api_key);
    assert.equal(res.status, 201);
    assert.match(res.body.id, /^we_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.deepEqual(res.body.events, ["job.completed", "job.failed", "job.canceled", "webhook_endpoint.disabled"]);
    assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const list = await t.request("GET", "/v1/webhook_endpoints", { key: api_key });
    assert.equal(list.status, 200);
    const shown = { id: res.body.id, url: URL_OK, events: res.body.events, status: "enabled", disabled_at: null, disabled_reason: null, created_at: res.body.created_at };
    assert.deepEqual(list.body, { webhook_endpoints: [shown] });
  });

  test("at most 10 per account, also when requests race", async () => {
    const { api_key } = await t.createKey();
    const results = await Promise.all(Array.from({ length: 14 }, (_, i) => create({ url: `https://hooks.example.com/${i}` }, api_key)));
    assert.equal(results.filter((r) => r.status === 201).length, 10);
    for (const refused of results.filter((r) => r.status !== 201)) {
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.message, /at most 10/);
    }
    const list = await t.request("GET", "/v1/webhook_endpoints", { key: api_key });
    assert.equal(list.body.webhook_endpoints.length, 10);
    const deleted = await t.request("DELETE", `/v1/webhook_endpoints/${list.body.webhook_endpoints[0].id}`, { key: api_key });
    assert.equal(deleted.status, 204);
    assert.equal((await create({ url: URL_OK }, api_key)).status, 201);
  });

  test("another account's endpoint is 404 for delete and deliveries; its own deliveries list starts empty", async () => {
    const owner = await t.createKey();
    const { body } = await create({ url: URL_OK }, owner.api_key);
    for (const [method, path] of [["DELETE", `/v1/webhook_endpoints/${body.id}`], ["GET", `/v1/webhook_endpoints/${body.id}/deliveries`]] as const) {
      const res = await t.request(method, path, { key });
      assert.equal(res.status, 404);
      assertErrorShape(res.body, "NOT_FOUND");
    }
    const deliveries = await t.request("GET", `/v1/webhook_endpoints/${body.id}/deliveries`, { key: owner.api_key });
    assert.deepEqual(deliveries.body, { deliveries: [] });
    assert.equal((await t.request("DELETE", `/v1/webhook_endpoints/${body.id}`, { key: owner.api_key })).status, 204);
    assert.equal((await t.request("DELETE", `/v1/webhook_endpoints/${body.id}`, { key: owner.api_key })).status, 404);
  });

  test("a read-only key lists but cannot create or delete; no key is 401", async () => {
    const reader = await t.createKey({ scopes: ["subtitles:read"] });
    assert.equal((await t.request("GET", "/v1/webhook_endpoints", { key: reader.api_key })).status, 200);
    const res = await create({ url: URL_OK }, reader.api_key);
    assert.equal(res.status, 401);
    assertErrorShape(res.body, "INSUFFICIENT_SCOPE");
    assert.equal((await t.request("DELETE", `/v1/webhook_endpoints/${testId("we")}`, { key: reader.api_key })).status, 401);
    assertErrorShape((await t.request("GET", "/v1/webhook_endpoints")).body, "UNAUTHORIZED");
  });
});
