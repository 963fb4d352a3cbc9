import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { isKnownVariable } from "./env-names.ts";
import { nodeCommandOf } from "./project-scripts.ts";

const CHART = path.join(REPO_ROOT, "helm", "caption-service");
const TEMPLATES = path.join(CHART, "templates");
const read = (file: string) => readFileSync(path.join(CHART, file), "utf8");
const templates = readdirSync(TEMPLATES).map((name) => ({ name, text: readFileSync(path.join(TEMPLATES, name), "utf8") }));
const allTemplateText = templates.map((t) => t.text).join("\n");
const values = parse(read("values.yaml")) as Record<string, unknown>;
const example = parse(read("values-example.yaml")) as Record<string, unknown>;
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(JSON.parse(read("values.schema.json")));
const errorsOf = (candidate: unknown) => (validate(candidate) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`));

/** A deep copy of `base` with `dotted` set to `value`. */
function withValue(base: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(base);
  const keys = dotted.split(".");
  let node = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1) ?? ""] = value;
  return copy;
}

/** Dotted paths of every leaf (scalars, lists, empty maps) of a values tree. */
function leaves(node: unknown, prefix = ""): string[] {
  if (node === null || typeof node !== "object" || Array.isArray(node) || Object.keys(node).length === 0) return [prefix];
  return Object.entries(node).flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key));
}

/** `.Values.a.b` in templates, and `$v.a.b` where a helper binds `$v := .root.Values`. */
const referencedPaths = [...new Set([...allTemplateText.matchAll(/(?:\.Values|\$v)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => (m[1] ?? "").slice(1)))];

describe("values", () => {
  test("every YAML file of the chart parses", () => {
    for (const file of ["Chart.yaml", "values.yaml", "values-example.yaml"]) assert.doesNotThrow(() => parse(read(file)), file);
    const chart = parse(read("Chart.yaml")) as Record<string, string>;
    assert.equal(chart.apiVersion, "v2");
    assert.equal(chart.name, "caption-service");
    assert.match(chart.version ?? "", /^\d+\.\d+\.\d+$/);
  });

  test("values.yaml and values-example.yaml satisfy values.schema.json", () => {
    assert.deepEqual(errorsOf(values), []);
    assert.deepEqual(errorsOf(example), []);
  });

  test("the schema rejects unknown keys and bad values at every level", () => {
    for (const [dotted, value] of [
      ["worker.concurency", 2],
      ["api.ingress.hostname", "x"],
      ["secrets.database.password", "hunter2"],
      ["worker.asr.provider", "rocm"],
      ["worker.concurrency", 0],
      ["config.storageUrl", "s3://Bad_Bucket/x"],
      ["config.s3.endpoint", "minio:9000"],
      ["api.service.type", "ExternalName"],
      ["worker.keda.query", "DELETE FROM pgboss.job"],
      ["secrets.database.name", ""],
    ] as const) {
      assert.notDeepEqual(errorsOf(withValue(values, dotted, value)), [], `${dotted}=${JSON.stringify(value)} was accepted`);
    }
  });

  test("every value is used by a template, and every value a template reads exists", () => {
    for (const reference of referencedPaths) {
      let node: unknown = values;
      for (const key of reference.split(".")) {
        assert.ok(node !== null && typeof node === "object" && key in node, `templates read .Values.${reference}, which values.yaml lacks`);
        node = (node as Record<string, unknown>)[key];
      }
    }
    for (const leaf of leaves(values)) {
      assert.ok(referencedPaths.some((r) => leaf === r || leaf.startsWith(`${r}.`)), `${leaf} is never used`);
    }
  });
});

describe("templates", () => {
  test("template actions are balanced: every if/with/range/define has its end", () => {
    for (const { name, text } of templates) {
      const actions = [...text.matchAll(/\{\{-?\s*(.*?)\s*-?\}\}/gs)].map((m) => m[1] ?? "");
      assert.equal(text.split("{{").length, text.split("}}").length, `${name}: unbalanced braces`);
      let depth = 0;
      for (const action of actions) {
        if (/^(if|with|range|define|block)\b/.test(action)) depth++;
        else if (/^end\b/.test(action)) depth--;
        assert.ok(depth >= 0, `${name}: end without a block`);
      }
      assert.equal(depth, 0, `${name}: unclosed block`);
    }
  });

  test("no Secret is rendered, and no ConfigMap but the dashboard's; secret values only come from secretKeyRef", () => {
    assert.doesNotMatch(allTemplateText, /kind:\s*Secret\b/);
    const others = templates.filter((t) => t.name !== "grafana-dashboard.yaml").map((t) => t.text).join("\n");
    assert.doesNotMatch(others, /kind:\s*ConfigMap\b/);
    assert.doesNotMatch(others, /\b(stringData|data):/);
    for (const reference of referencedPaths.filter((r) => r.startsWith("secrets."))) {
      assert.match(reference, /\.(name|key|accessKeyIdKey|secretAccessKeyKey)$/, `${reference}: only Secret names and keys may be read`);
    }
    const secretEnv = ["DATABASE_URL", "URL_SIGNING_SECRET", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"];
    for (const name of secretEnv) {
      for (const m of allTemplateText.matchAll(new RegExp(`- name: ${name}\\n(\\s+)(\\w+):`, "g"))) assert.equal(m[2], "valueFrom", `${name} must come from a Secret`);
    }
  });

  test("containers get only variables the service reads", () => {
    const names = [...allTemplateText.matchAll(/- name: ([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1] ?? "");
    assert.ok(names.length > 5);
    for (const name of names) assert.ok(isKnownVariable(name), `${name} is not in shared/src/config/env.ts`);
  });

  test("containers run what the npm scripts api, worker and migrate run", () => {
    const commands = [...allTemplateText.matchAll(/(?:command|args): (\[.*\])/g)].map((m) => JSON.stringify(JSON.parse(m[1] ?? "[]")));
    assert.deepEqual(commands.sort(), ["api", "worker", "migrate"].map((s) => JSON.stringify(nodeCommandOf(s))).sort());
    for (const file of commands.flatMap((c) => JSON.parse(c) as string[]).filter((a) => a.endsWith(".ts"))) assert.ok(existsSync(path.join(REPO_ROOT, file)), file);
  });

  test("API probes, worker GPU scheduling and a termination grace longer than the drain", () => {
    const api = templates.find((t) => t.name === "api-deployment.yaml")?.text ?? "";
    assert.match(api, /livenessProbe:\s+httpGet:\s+path: \/healthz/);
    assert.match(api, /readinessProbe:\s+httpGet:\s+path: \/readyz/);
    const worker = templates.find((t) => t.name === "worker-deployment.yaml")?.text ?? "";
    for (const field of ["runtimeClassName", "nodeSelector", "tolerations", "affinity"]) assert.match(worker, new RegExp(`${field}:`));
    assert.match(worker, /\.Values\.worker\.gpu\.resourceName \}\}: \{\{ \.Values\.worker\.gpu\.count/);
    const margin = Number(/terminationGracePeriodSeconds: \{\{ add \.Values\.worker\.shutdownGraceSeconds (\d+) \}\}/.exec(worker)?.[1]);
    // After the grace period the worker waits up to 10 s for aborted jobs to hand back, then 2 s for pg-boss.
    assert.ok(margin >= 15, `margin ${margin}`);
  });

  test("the API's /metrics listens on its own port, which neither the Service nor the Ingress exposes", () => {
    const api = templates.find((t) => t.name === "api-deployment.yaml")?.text ?? "";
    assert.match(api, /- name: metrics\s+containerPort: \{\{ \.Values\.api\.metricsPort \}\}/);
    assert.match(api, /- name: METRICS_PORT\s+value: \{\{ \.Values\.api\.metricsPort \| quote \}\}/);
    assert.match(api, /prometheus\.io\/port: "\{\{ \.Values\.api\.metricsPort \}\}"/);
    const service = templates.find((t) => t.name === "api-service.yaml")?.text ?? "";
    const ingress = templates.find((t) => t.name === "api-ingress.yaml")?.text ?? "";
    assert.doesNotMatch(service, /metrics/);
    assert.match(service, /targetPort: http\b/);
    assert.doesNotMatch(ingress, /metrics/);
    assert.match(ingress, /port:\s+name: http\b/);
    assert.notDeepEqual(errorsOf(withValue(values, "api.metricsPort", 8080)), [], "metrics on the public port is refused");
  });

  test("proxy headers are trusted only when config.trustProxy says so", () => {
    const api = templates.find((t) => t.name === "api-deployment.yaml")?.text ?? "";
    assert.match(api, /- name: TRUST_PROXY\s+value: \{\{ \.Values\.config\.trustProxy \| quote \}\}/);
    assert.equal((values.config as Record<string, unknown>).trustProxy, false);
  });

  test("the migration Job runs before install and upgrade", () => {
    const job = templates.find((t) => t.name === "migrate-job.yaml")?.text ?? "";
    assert.match(job, /"helm.sh\/hook": pre-install,pre-upgrade/);
    assert.match(job, /kind: Job/);
  });
});
