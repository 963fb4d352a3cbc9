// Which series and labels the dashboard and the alert rules ask Prometheus for, and which the service's code
// registers: they must agree, by the names the Prometheus exporter writes.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";

/** Labels Prometheus adds itself (job, instance), and the histogram bucket bound. */
const SCRAPE_LABELS = new Set(["job", "instance", "le"]);

/** Metric names in a PromQL expression: identifiers outside label matchers and by/on/without lists, other than functions and keywords. */
export function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\b(by|on|without|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/"[^"]*"/g, " ");
  return [...new Set([...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1] ?? ""))].filter(
    (name) => !/^(and|or|unless|bool|offset|by|on|without|ignoring|group_left|group_right|inf|nan)$/i.test(name) && !/^\d/.test(name) && !/^[0-9.]+[smhdwy]?$/.test(name),
  );
}

/** Label names an expression matches on or groups by (Prometheus' own left out). */
export function labelsIn(expr: string): string[] {
  const inMatchers = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...(m[1] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)].map((l) => l[1] ?? ""));
  const grouped = [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => (m[1] ?? "").split(",").map((l) => l.trim()));
  return [...new Set([...inMatchers, ...grouped])].filter((label) => label !== "" && !SCRAPE_LABELS.has(label));
}

const TELEMETRY_DIRS = ["shared/src/telemetry", "control-plane/src/telemetry", "gpu-worker/src/telemetry"];

/**
 * The series the service's code registers, as the Prometheus exporter names them: counters `_total`,
 * histograms `_bucket`/`_sum`/`_count`. With the HTTP instrumentation's server duration, the exporter's
 * `target_info`, and Prometheus' own `up`.
 */
export function registeredSeries(): Set<string> {
  const series = new Set(["up", "target_info", ...histogram("http_server_request_duration")]);
  for (const dir of TELEMETRY_DIRS) {
    for (const file of readdirSync(path.join(REPO_ROOT, dir)).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const source = readFileSync(path.join(REPO_ROOT, dir, file), "utf8");
      for (const [, kind, name] of source.matchAll(/create(Counter|Histogram|ObservableGauge|Gauge|UpDownCounter)\(\s*"([a-z0-9_.]+)"/g)) {
        const prometheus = (name ?? "").replaceAll(".", "_");
        if (kind === "Counter") series.add(`${prometheus}_total`);
        else if (kind === "Histogram") for (const s of histogram(prometheus)) series.add(s);
        else series.add(prometheus);
      }
    }
  }
  return series;
}

function histogram(name: string): string[] {
  return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
}

/** Metric and label names of a Prometheus text exposition. */
export function exposed(text: string): { series: Set<string>; labels: Set<string> } {
  const series = new Set<string>();
  const labels = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? /.exec(line);
    if (!m) continue;
    series.add(m[1] ?? "");
    for (const l of (m[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) labels.add(l[1] ?? "");
  }
  return { series, labels };
}

interface Dashboard {
  templating: { list: { name: string; query?: string | { query: string } }[] };
  panels: { title: string; targets?: { expr: string }[] }[];
}

/** Every PromQL expression of the dashboard (panels and variables), with Grafana's variables given values. */
export function dashboardExpressions(dashboard: Dashboard): { where: string; expr: string }[] {
  const concrete = (expr: string) => expr.replaceAll("$__rate_interval", "5m").replaceAll("$api_job", "captions-caption-service-api").replaceAll("$worker_job", "captions-caption-service-worker");
  const panels = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((t) => ({ where: panel.title, expr: concrete(t.expr) })));
  const variables = dashboard.templating.list
    .map((v) => ({ where: `variable ${v.name}`, query: typeof v.query === "string" ? v.query : v.query?.query }))
    .flatMap(({ where, query }) => {
      const selector = /^label_values\((.*),\s*[a-z_]+\)$/.exec(query ?? "")?.[1];
      return selector ? [{ where, expr: selector }] : [];
    });
  return [...panels, ...variables];
}

export const DASHBOARD_FILE = path.join(REPO_ROOT, "helm", "caption-service", "dashboards", "caption-service.json");
export const readDashboard = () => JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")) as Dashboard;
