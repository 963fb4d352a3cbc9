import os from "node:os";
import { atMost, type TargetCheck } from "../targets.ts";
import type { AttackCounts } from "./attack.ts";
import { percentile, wallMs, type Phase } from "./phases.ts";

export interface Figures {
  cpu: string;
  loop: string;
  calm: Phase;
  attacked: Phase;
  quietWebhooks: (number | null)[];
  webhookLatencies: (number | null)[];
  peakRss: number;
  rssBefore: number;
  counts: AttackCounts;
  loadAtStart: number[];
  streams: number;
  churnLoops: number;
  held: number;
  duration: number;
  rounds: number;
  attacks: string[];
  attacker: string;
}

/** One phase's line: req/s, pooled percentiles and the p99 of each window in turn. */
function describe(phase: Phase): string {
  const perSecond = Math.round(phase.requests / Math.max(1, wallMs(phase) / 1000));
  const ms = (p: number) => percentile(phase.latencies, p).toFixed(1);
  return `${perSecond} req/s, p50 ${ms(50)} p99 ${ms(99)} ms over ${phase.latencies.length} responses`;
}

export function report(f: Figures): void {
  const arrived = f.webhookLatencies.filter((s): s is number => s !== null).sort((a, b) => a - b);
  const lost = f.webhookLatencies.length - arrived.length;
  const worst = lost > 0 ? Number.POSITIVE_INFINITY : (arrived[arrived.length - 1] ?? Number.POSITIVE_INFINITY);
  const [quietP99, attackP99] = [percentile(f.calm.latencies, 99), percentile(f.attacked.latencies, 99)];
  const p99Ratio = quietP99 > 0 ? attackP99 / quietP99 : 0;
  const checks: TargetCheck[] = [
    atMost("second account's GET p99 ÷ its quiet p99", Math.round(p99Ratio * 100) / 100, 2, "×"),
    atMost("second account's slowest webhook after its event", Math.round(worst * 100) / 100, 10, "s"),
    atMost("API process peak RSS", Math.round(f.peakRss), 512, "MiB"),
  ];
  const uploads = f.attacks.includes("uploads");
  const [quietUploadP99, attackUploadP99] = [percentile(f.calm.uploadLatencies, 99), percentile(f.attacked.uploadLatencies, 99)];
  const uploadRatio = quietUploadP99 > 0 ? attackUploadP99 / quietUploadP99 : 0;
  if (uploads) checks.splice(1, 0, atMost("second account's upload PATCH p99 ÷ its quiet p99", Math.round(uploadRatio * 100) / 100, 2, "×"));
  const describeUploads = (phase: Phase) => {
    const perSecond = Math.round(phase.uploadRequests / Math.max(1, wallMs(phase) / 1000));
    const ms = (p: number) => percentile(phase.uploadLatencies, p).toFixed(1);
    return `${perSecond} PATCH/s, p50 ${ms(50)} p99 ${ms(99)} ms over ${phase.uploadLatencies.length}, unexpected ${phase.uploadUnexpected}`;
  };
  const fmt = (s: number | null) => (s === null ? "none in 60 s" : `${s.toFixed(2)} s`);
  console.log(`\nabuse benchmark: ${f.rounds} rounds of quiet and ${f.duration} s attack windows, ${os.cpus().length} CPUs, Node ${process.versions.node}`);
  console.log(`load average at start ${f.loadAtStart.map((n) => n.toFixed(2)).join(" ")}, at end ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  console.log(`attacks: ${f.attacks.join(", ")}; the attacker's key: ${f.attacker === "ordinary" ? "ordinary (a new account's limits)" : "unlimited (rate and concurrency lifted)"}`);
  console.log(`attacker: ${f.churnLoops} submit+cancel loops (${f.counts.churned} jobs) feeding 10 endpoints that never answer; ${f.counts.encodedBodies} brotli bodies inflating to 16 MiB;`);
  console.log(`          ${f.counts.streamsOpened} of ${f.streams} event streams opened; ${f.counts.opened} PATCHes held open on its upload URL (${f.held} at once);`);
  console.log(`          answers ${JSON.stringify(f.counts.statusCodes)}`);
  console.log(`second account GET /v1/jobs/{id}: quiet ${describe(f.calm)}; under attack ${describe(f.attacked)} (p99 ${p99Ratio.toFixed(2)}×), unexpected ${f.calm.unexpected + f.attacked.unexpected}`);
  if (uploads) console.log(`second account uploads (4 KiB PATCHes): quiet ${describeUploads(f.calm)}; under attack ${describeUploads(f.attacked)} (p99 ${uploadRatio.toFixed(2)}×)`);
  console.log(`second account webhooks: quiet ${f.quietWebhooks.map(fmt).join(", ")}; under attack ${arrived.length} arrived (p50 ${fmt(arrived[Math.floor(arrived.length / 2)] ?? null)}, slowest ${fmt(arrived[arrived.length - 1] ?? null)}), ${lost} not within 60 s`);
  console.log(`API event loop delay: ${f.loop}`);
  console.log(`CPU: ${f.cpu}`);
  console.log(`API process RSS: ${f.rssBefore.toFixed(0)} MiB before, peak ${f.peakRss.toFixed(0)} MiB`);
  for (const c of checks) console.log(`  ${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.measured} ${c.unit} (limit ${c.limit} ${c.unit})`);
}
