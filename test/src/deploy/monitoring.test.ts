// The Grafana dashboard and the alert rules ask for series the service's code registers, by the names the
// Prometheus exporter gives them, in PromQL that Prometheus' own parser accepts. (npm run images:check
// checks the same names against the /metrics of the API and worker containers after a real job.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { HELM_AVAILABLE } from "./chart/helm.ts";
import { objectOf, renderChart } from "./chart/render.ts";
import { promtool } from "./monitoring/promtool.ts";
import { DASHBOARD_FILE, dashboardExpressions, metricsIn, readDashboard, registeredSeries } from "./monitoring/promql-names.ts";

const dashboard = readDashboard();

async function alertExpressions(): Promise<{ where: string; expr: string }[]> {
  const { objects } = await renderChart("values-example.yaml");
  const { spec } = objectOf(objects, "PrometheusRule") as unknown as { spec: { groups: { rules: { alert: string; expr: string }[] }[] } };
  return spec.groups.flatMap((g) => g.rules.map((r) => ({ where: r.alert, expr: r.expr })));
}

test("the dashboard is in docs/ as the chart ships it, and covers what an operator watches", () => {
  assert.equal(readFileSync(path.join(REPO_ROOT, "docs", "grafana-dashboard.json"), "utf8"), readFileSync(DASHBOARD_FILE, "utf8"));
  const everything = dashboardExpressions(dashboard).map((e) => e.expr).join("\n");
  for (const metric of [
    "caption_queue_depth", "caption_queue_oldest_age", "caption_jobs_total", "caption_stage_duration_bucket", "caption_asr_real_time_factor_bucket",
    "caption_render_frames_per_second_bucket", "http_server_request_duration_bucket", "caption_credits_charged_total", "caption_webhooks_oldest_due_age",
  ]) {
    assert.ok(metricsIn(everything).includes(metric), `no panel shows ${metric}`);
  }
  assert.match(everything, /http_response_status_code=~"5\.\."/, "API 5xx");
});

test("every series the dashboard and the alert rules ask for is one the code registers", { skip: !HELM_AVAILABLE }, async () => {
  const registered = registeredSeries();
  assert.ok(registered.has("caption_jobs_total") && registered.has("caption_stage_duration_bucket") && registered.has("caption_database_up"), [...registered].join(" "));
  for (const { where, expr } of [...dashboardExpressions(dashboard), ...(await alertExpressions())]) {
    const metrics = metricsIn(expr);
    assert.ok(metrics.length > 0, `${where}: ${expr}`);
    for (const metric of metrics) assert.ok(registered.has(metric), `${where}: ${metric} is not a series the service exports`);
  }
  assert.deepEqual(metricsIn('sum by (caption_stage) (rate(caption_stagee_duration_count{caption_stage="x"}[5m]))'), ["caption_stagee_duration_count"], "a misspelt name is seen");
});

test("every dashboard query parses as PromQL (promtool, as recording rules)", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "dashboard-promql-"));
  try {
    const rules = dashboardExpressions(dashboard).map(({ expr }, i) => ({ record: `dashboard:query_${i}`, expr }));
    await writeFile(path.join(dir, "dashboard.yaml"), stringify({ groups: [{ name: "dashboard", rules }] }));
    const check = await promtool(["check", "rules", path.join(dir, "dashboard.yaml")]);
    assert.equal(check.exitCode, 0, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`SUCCESS: ${rules.length} rules found`));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
