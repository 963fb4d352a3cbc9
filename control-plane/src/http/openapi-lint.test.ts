import assert from "node:assert/strict";
import { test } from "node:test";
import { Spectral } from "@stoplight/spectral-core";
import { oas } from "@stoplight/spectral-rulesets";
import { buildOpenApiDocument } from "./openapi.ts";
import { ROUTES } from "./routes.ts";

// The document is good enough to generate clients from: Spectral's OpenAPI ruleset (every rule it
// recommends: descriptions, tags, declared security, contact, no unused components, valid examples…)
// finds nothing at all.

test("Spectral's spectral:oas ruleset reports no errors, warnings or hints", async () => {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, "recommended"]] });
  const results = await spectral.run(JSON.stringify(buildOpenApiDocument("https://captions.example.com", ROUTES), null, 2));
  const report = results.map((r) => `${r.severity} ${r.code} at ${r.path.join(".")}: ${r.message}`);
  assert.deepEqual(report, []);
});

test("the linter bites: a document without operation tags is reported", async () => {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, "recommended"]] });
  const document = buildOpenApiDocument("https://captions.example.com", ROUTES) as unknown as { paths: Record<string, Record<string, { tags?: string[] }>> };
  delete document.paths["/v1/usage"]?.get?.tags;
  const results = await spectral.run(JSON.stringify(document));
  assert.deepEqual(results.map((r) => r.code), ["operation-tags"]);
});
