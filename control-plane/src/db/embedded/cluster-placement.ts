import { createHash } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { canEnter, ensureDatabaseUser, isRoot, type DatabaseUser } from "./database-user.ts";
import { EmbeddedPostgresError } from "./embedded-postgres-error.ts";

/** Where root's embedded databases live when their DATA_DIR is out of the database user's reach. */
export const ROOT_STATE_DIR = "/var/lib/caption-service";
export const CLUSTERS_SUBDIR = "clusters";

export interface ClusterPlacement {
  /** The cluster's data directory (PGDATA). */
  dir: string;
  /** Outside DATA_DIR; DATA_DIR/postgres.json records it. */
  external: boolean;
  /** Who runs initdb and postgres when this process is root; absent otherwise (this process's own user). */
  user?: DatabaseUser;
}

/**
 * Where the cluster of `dataDir` lives, and as whom it runs. Normally `DATA_DIR/postgres`. As root
 * PostgreSQL runs as the `postgres` system user, which cannot enter a DATA_DIR behind a private
 * parent (/root, a mktemp directory): that cluster lives under `<stateDir>/clusters/` instead, named
 * after DATA_DIR's real path. A placement, once made, is kept: `recorded` is what postgres.json says.
 */
export async function placeCluster(dataDir: string, recorded: string | undefined, stateDir: string): Promise<ClusterPlacement> {
  const inside = path.join(dataDir, "postgres");
  const dir = recorded ?? inside;
  const owner = await ownerOf(dir);
  if (!isRoot()) {
    if (owner && owner.uid !== process.getuid?.()) {
      throw new EmbeddedPostgresError(`the database in ${dir} belongs to user id ${owner.uid}, not to you: start the service as that user (or as root), or use another DATA_DIR`);
    }
    return { dir, external: recorded !== undefined };
  }
  // An existing cluster keeps running as the user that owns it (one made by an ordinary user, or an earlier version).
  if (owner) return { dir, external: recorded !== undefined, user: owner.uid === 0 ? await ensureDatabaseUser() : owner };
  const user = await ensureDatabaseUser();
  if (recorded !== undefined || (await canEnter(user, dataDir))) return { dir, external: recorded !== undefined, user };
  return { dir: path.join(stateDir, CLUSTERS_SUBDIR, clusterName(await realpath(dataDir))), external: true, user };
}

/** Readable and unique: the path's characters that are safe in a file name, then a hash of the whole path. */
export function clusterName(realDataDir: string): string {
  const readable = realDataDir.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(-48);
  const hash = createHash("sha256").update(realDataDir).digest("hex").slice(0, 12);
  return `${readable}-${hash}`;
}

async function ownerOf(dir: string): Promise<DatabaseUser | null> {
  return stat(dir).then(
    (info) => ({ name: `uid ${info.uid}`, uid: info.uid, gid: info.gid }),
    () => null,
  );
}
