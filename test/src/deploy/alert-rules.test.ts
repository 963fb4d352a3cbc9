// The chart's alert rules, as Helm renders them, checked and unit-tested by Prometheus' own promtool
// (Debian's prometheus package; `npm run setup` installs it) on synthetic series: alerts/alert-rules.promtool.yaml.
import assert from "node:assert/strict";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import { HELM_AVAILABLE } from "./chart/helm.ts";
import { objectOf, renderChart } from "./chart/render.ts";
import { promtool as runPromtool } from "./monitoring/promtool.ts";

const TESTS = path.join(import.meta.dirname, "alerts", "alert-rules.promtool.yaml");
let dir: string;
let groups: { name: string; rules: { alert: string; expr: string }[] }[];

before(async () => {
  const { objects, run } = await renderChart("values-example.yaml");
  assert.equal(run.exitCode, 0, run.stderr);
  groups = (objectOf(objects, "PrometheusRule") as unknown as { spec: { groups: typeof groups } }).spec.groups;
  dir = await mkdtemp(path.join(tmpdir(), "alert-rules-"));
  await writeFile(path.join(dir, "rules.yaml"), stringify({ groups }));
  await copyFile(TESTS, path.join(dir, "tests.yaml"));
});
after(() => rm(dir, { recursive: true, force: true }));

const promtool = (args: string[]) => runPromtool(args, dir);

test("the rendered rules are valid Prometheus rules", { skip: !HELM_AVAILABLE }, async () => {
  const check = await promtool(["check", "rules", "rules.yaml"]);
  assert.equal(check.exitCode, 0, check.stdout + check.stderr);
  assert.deepEqual(groups.flatMap((g) => g.rules.map((r) => r.alert)).sort(), [
    "CaptionApiErrors", "CaptionDatabaseUnavailable", "CaptionJobFailureRatioHigh", "CaptionNoWorker", "CaptionQueueStalled", "CaptionWebhookBacklog",
  ]);
});

test("promtool test rules: each alert fires on the series it is for, and stays quiet on the ones it is not", { skip: !HELM_AVAILABLE }, async () => {
  const run = await promtool(["test", "rules", "tests.yaml"]);
  assert.equal(run.exitCode, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /SUCCESS/);
});

test("the unit tests bite: a rule whose threshold moves fails them", { skip: !HELM_AVAILABLE }, async () => {
  const { objects } = await renderChart("values-example.yaml", { observability: { prometheusRule: { oldestQueuedSeconds: 1200 } } });
  const moved = (objectOf(objects, "PrometheusRule") as unknown as { spec: { groups: typeof groups } }).spec.groups;
  await writeFile(path.join(dir, "rules.yaml"), stringify({ groups: moved }));
  try {
    const run = await promtool(["test", "rules", "tests.yaml"]);
    assert.notEqual(run.exitCode, 0);
    assert.match(run.stdout + run.stderr, /CaptionQueueStalled/);
  } finally {
    await writeFile(path.join(dir, "rules.yaml"), stringify({ groups }));
  }
});
