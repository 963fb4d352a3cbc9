import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { processAlive } from "../db/embedded-postgres.ts";

/**
 * DATA_DIR/service.json: where the `npm start` service on this data directory answers, so a caption command
 * run beside it joins it instead of starting a second service over the same database and files.
 */
export interface ServiceAdvert {
  url: string;
  pid: number;
}

const FILE = "service.json";

/** Writes the advert (readable by this user alone) and returns what removes it, if it is still this process's. */
export async function advertiseService(dataDir: string, url: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, FILE);
  await writeFile(file, JSON.stringify({ url, pid: process.pid } satisfies ServiceAdvert), { mode: 0o600 });
  return async () => {
    const current = await readAdvert(dataDir);
    if (current?.pid === process.pid) await rm(file, { force: true });
  };
}

/** The advertised service whose process is alive; null when there is none (or only a stale file). */
export async function findAdvertisedService(dataDir: string): Promise<ServiceAdvert | null> {
  const advert = await readAdvert(dataDir);
  return advert !== null && processAlive(advert.pid) ? advert : null;
}

async function readAdvert(dataDir: string): Promise<ServiceAdvert | null> {
  try {
    const value = JSON.parse(await readFile(path.join(dataDir, FILE), "utf8")) as Partial<ServiceAdvert>;
    return typeof value.url === "string" && Number.isInteger(value.pid) ? { url: value.url, pid: value.pid as number } : null;
  } catch {
    return null;
  }
}
