// PostgreSQL, the migration, the API and the CPU worker as containers on loopback ports, run as the
// chart's pods run them (chart-pods.ts), and removed afterwards with their volumes.
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { IMAGES } from "./build-images.ts";
import { chartPods, type ChartPods } from "./chart-pods.ts";
import type { Podman } from "./podman.ts";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(250);
  }
}

export interface Service {
  apiUrl: string;
  apiMetricsUrl: string;
  workerMetricsUrl: string;
  names: { postgres: string; api: string; worker: string };
  pods: ChartPods;
  logs(container: string): Promise<string>;
  remove(): Promise<void>;
}

/** Starts the service; `remove()` takes every container and volume it made away, whatever state it is in. */
export async function startService(podman: Podman, log: (line: string) => void): Promise<Service> {
  const run = `caption-check-${process.pid}`;
  const names = { postgres: `${run}-postgres`, api: `${run}-api`, worker: `${run}-worker`, migrate: `${run}-migrate` };
  const [pgPort, apiPort, apiMetricsPort, workerMetricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const password = `check-${process.pid}-${Date.now()}`;
  const databaseUrl = `postgres://caption:${password}@127.0.0.1:${pgPort}/caption`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const loopback = { HOST: "127.0.0.1", METRICS_HOST: "127.0.0.1" };
  const pods = await chartPods(
    {
      image: { worker: { repository: "localhost/caption-cpu-worker", tag: "check", pullPolicy: "Never" } },
      config: { publicBaseUrl: apiUrl },
      persistence: { existingClaim: "caption-results" },
      secrets: { database: { name: "caption-database", key: "url" }, urlSigning: { name: "caption-url-signing", key: "secret" } },
      api: { replicaCount: 1, autoscaling: { enabled: false }, metricsPort: apiMetricsPort },
      worker: { metricsPort: workerMetricsPort, gpu: { enabled: false }, asr: { engine: "auto", provider: "cpu" }, tolerations: [] },
    },
    {
      secrets: { "caption-database/url": databaseUrl, "caption-url-signing/secret": `signing-${password}-0123456789abcdef` },
      loopback: { api: { ...loopback, PORT: String(apiPort) }, worker: loopback },
      volumes: { claim: `${run}-results`, prefix: run },
    },
  );
  const service: Service = {
    apiUrl,
    apiMetricsUrl: `http://127.0.0.1:${apiMetricsPort}/metrics`,
    workerMetricsUrl: `http://127.0.0.1:${workerMetricsPort}/metrics`,
    names,
    pods,
    logs: (container) => podman(["logs", container]).catch((error: Error) => error.message),
    async remove() {
      await podman(["rm", "--force", "--ignore", "--time", "0", ...Object.values(names)]).catch(() => undefined);
      const volumes = (await podman(["volume", "ls", "--quiet", "--filter", `name=${run}`]).catch(() => "")).split("\n").filter(Boolean);
      if (volumes.length > 0) await podman(["volume", "rm", "--force", ...volumes]).catch(() => undefined);
    },
  };
  try {
    log(`postgres on 127.0.0.1:${pgPort}`);
    await podman(["run", "-d", "--name", names.postgres, "--tmpfs", "/var/run/postgresql", "--tmpfs", "/tmp", "-e", `PGPASSWORD=${password}`, IMAGES.postgres, "sh", "-c",
      `echo "$PGPASSWORD" > /tmp/pw && initdb -D /tmp/pgdata -U caption --auth=scram-sha-256 --pwfile=/tmp/pw >/dev/null && exec postgres -D /tmp/pgdata -p ${pgPort} -c listen_addresses=127.0.0.1 -k /tmp`]);
    await until("postgres ready", 120, async () => (await podman(["exec", names.postgres, "pg_isready", "-h", "127.0.0.1", "-p", String(pgPort)]), true));
    await podman(["exec", names.postgres, "createdb", "-h", "127.0.0.1", "-p", String(pgPort), "-U", "caption", "caption"]);

    log("migration (the chart's pre-install Job)");
    await podman(["run", "--rm", "--name", names.migrate, ...pods.migrate.options, IMAGES.api, ...pods.migrate.command]);

    log(`API on ${apiUrl}`);
    await podman(["run", "-d", "--name", names.api, ...pods.api.options, IMAGES.api, ...pods.api.command]);
    await until("API /readyz 200", 180, async () => ((await fetch(`${apiUrl}/readyz`)).status === 200 ? true : undefined));

    log("CPU worker");
    await podman(["run", "-d", "--name", names.worker, ...pods.worker.options, IMAGES.worker, ...pods.worker.command]);
    await until("worker ready", 180, async () => ((await service.logs(names.worker)).includes('"msg":"worker starting"') ? true : undefined));
    return service;
  } catch (error) {
    for (const name of [names.postgres, names.api, names.worker]) log(`--- ${name} logs ---\n${(await service.logs(name)).split("\n").slice(-30).join("\n")}`);
    await service.remove();
    throw error;
  }
}

export { until };
