import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { EmbeddedPostgresError, lastLine } from "./embedded-postgres-error.ts";

const run = promisify(execFile);

/** An unprivileged account the server runs as when this process is root (PostgreSQL refuses to run as root). */
export interface DatabaseUser {
  name: string;
  uid: number;
  gid: number;
}

export const DATABASE_USER_NAME = "postgres";

export const isRoot = () => process.getuid?.() === 0;

async function lookUp(name: string): Promise<DatabaseUser | null> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", name]), run("id", ["-g", name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return null;
  }
}

async function groupExists(name: string): Promise<boolean> {
  return run("getent", ["group", name]).then(
    () => true,
    () => false,
  );
}

/**
 * The `postgres` system user, created (no login, no home directory) when the machine has none.
 * Debian's own PostgreSQL packages use the same name, so a later `apt install postgresql` agrees with it.
 */
export async function ensureDatabaseUser(): Promise<DatabaseUser> {
  const existing = await lookUp(DATABASE_USER_NAME);
  if (existing) return existing;
  const group = (await groupExists(DATABASE_USER_NAME)) ? ["--gid", DATABASE_USER_NAME] : ["--user-group"];
  const args = ["--system", ...group, "--no-create-home", "--home-dir", "/var/lib/postgresql", "--shell", "/usr/sbin/nologin", "--comment", "PostgreSQL server", DATABASE_USER_NAME];
  const failure = await run("useradd", args).then(
    () => null,
    (error: { stderr?: string; message: string }) => error,
  );
  // Another process may have created it at the same moment.
  const created = await lookUp(DATABASE_USER_NAME);
  if (created) return created;
  throw new EmbeddedPostgresError(
    `PostgreSQL cannot run as root and the system user "${DATABASE_USER_NAME}" could not be created (${lastLine(failure?.stderr || failure?.message || "")}): ` +
      `create it (useradd --system ${DATABASE_USER_NAME}), run as an ordinary user, or set DATABASE_URL`,
  );
}

/**
 * Whether `user` can open `directory` — search permission on it and on every directory above it,
 * which a private parent such as /root (0700) denies. Asked of the kernel as that user, so ACLs and
 * group membership count exactly as they will for the server.
 */
export async function canEnter(user: DatabaseUser, directory: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("test", ["-x", directory], { uid: user.uid, gid: user.gid, cwd: "/", stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  });
}
