// The dashboard's and the alert rules' series and labels, checked against the /metrics of the API and worker
// containers after a real job: the names the running service exposes, not only those its code registers.
import assert from "node:assert/strict";
import { objectOf, renderChart } from "../chart/render.ts";
import { dashboardExpressions, exposed, labelsIn, metricsIn, readDashboard } from "../monitoring/promql-names.ts";
import type { Service } from "./service-containers.ts";

/** Labels a series carries only when something failed (`error.type` on a failed stage): a clean run has none. */
const ON_FAILURE_ONLY = new Set(["error_type"]);

export async function checkExposedNames(service: Service): Promise<void> {
  const texts = await Promise.all([service.apiMetricsUrl, service.workerMetricsUrl].map(async (url) => (await fetch(url)).text()));
  const { series, labels } = exposed(texts.join("\n"));
  const { objects } = await renderChart("values-example.yaml");
  const rules = (objectOf(objects, "PrometheusRule") as unknown as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } }).spec.groups.flatMap((g) => g.rules);
  const expressions = [...dashboardExpressions(readDashboard()), ...rules.map((r) => ({ where: r.alert, expr: r.expr }))];
  for (const { where, expr } of expressions) {
    // `up` is Prometheus' own, written at each scrape.
    for (const metric of metricsIn(expr).filter((m) => m !== "up")) assert.ok(series.has(metric), `${where}: ${metric} is not on the containers' /metrics`);
    for (const label of labelsIn(expr).filter((l) => !ON_FAILURE_ONLY.has(l))) assert.ok(labels.has(label), `${where}: label ${label} is on no series of the containers' /metrics`);
  }
}
