import autocannon from "autocannon";

export interface Scenario {
  name: string;
  /** The status every request of the scenario should get. */
  expectStatus: number;
  request: autocannon.Request;
}

export interface Measurement {
  name: string;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  total: number;
  /** Responses with another status than expected, plus connection errors and timeouts. */
  unexpected: number;
  statusCodes: Record<string, number>;
  durationSeconds: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Every response's time (ms) is pushed here: percentiles pooled over several runs. */
  latencies?: number[];
}

/** Drives one scenario with autocannon, printing one progress line a second to stderr. */
export async function runLoad(scenario: Scenario, options: LoadOptions, label = scenario.name): Promise<Measurement> {
  let instance: autocannon.Instance | undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      { url: options.url, connections: options.connections, duration: options.durationSeconds, requests: [scenario.request] },
      (error: unknown, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
  });
  const latencies = options.latencies;
  if (latencies) instance?.on("response", ((_client: unknown, _status: number, _bytes: number, ms: number) => void latencies.push(ms)) as () => void);
  let elapsed = 0;
  const tty = process.stderr.isTTY;
  instance?.on("tick", ((tick: { counter: number }) => {
    // autocannon ends with one more tick that counts nothing.
    if (++elapsed > options.durationSeconds) return;
    const line = `  ${label.padEnd(46)} ${String(elapsed).padStart(3)}/${options.durationSeconds} s  ${String(tick.counter).padStart(6)} req/s`;
    process.stderr.write(tty ? `\r${line}` : `${line}\n`);
  }) as () => void);
  const result = await finished;
  if (tty) process.stderr.write("\n");

  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  const expected = statusCodes[String(scenario.expectStatus)] ?? 0;
  const answered = Object.values(statusCodes).reduce((sum, n) => sum + n, 0);
  return {
    name: scenario.name,
    // Only the expected answers count as throughput; a fast stream of errors is not a result.
    requestsPerSecond: Math.round(expected / result.duration),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: result.latency.mean },
    total: answered,
    unexpected: answered - expected + result.errors + result.timeouts,
    statusCodes,
    durationSeconds: result.duration,
  };
}
