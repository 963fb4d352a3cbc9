import { rm } from "node:fs/promises";
import path from "node:path";
import { CHALLENGE_HEADER, isToken, newToken, PROOF_HEADER, proofMatches } from "../services/service-identity.ts";
import { createOwnerOnlyFile, readOwnerOnlyFile } from "./owner-only-file.ts";

/**
 * DATA_DIR/service.json: where the `npm start` service on this data directory answers, so a caption command
 * run beside it joins it instead of starting a second service over the same database and files. `nonce` binds
 * the file to that process: the service proves it knows it on /readyz (service-identity.ts).
 */
export interface ServiceAdvert {
  url: string;
  pid: number;
  nonce: string;
}

const FILE = "service.json";
const CONFIRM_TIMEOUT_MS = 5000;

/**
 * Writes the advert (this user's alone, mode 0600) and returns what removes it on a clean stop, if it is still
 * this process's. A file left at that name (a service that did not stop cleanly, or a link planted there) is
 * removed first, and the new one is created exclusively, never through a link.
 */
export async function advertiseService(dataDir: string, url: string, nonce: string): Promise<() => Promise<void>> {
  const file = path.join(dataDir, FILE);
  await rm(file, { force: true });
  await createOwnerOnlyFile(file, JSON.stringify({ url, pid: process.pid, nonce } satisfies ServiceAdvert));
  return async () => {
    const current = await readOwnerOnlyFile(file);
    if (current !== null && "text" in current && parseAdvert(current.text)?.nonce === nonce) await rm(file, { force: true });
  };
}

/** The advertised service, confirmed; or why the file there is not used (`ignored`); neither when there is none. */
export type AdvertLookup = { advert: ServiceAdvert; ignored?: undefined } | { advert?: undefined; ignored?: string };

/**
 * The service DATA_DIR/service.json advertises, used only when everything holds: the file is this user's alone
 * (readOwnerOnlyFile), its URL is on loopback (a key is sent there), its process is alive and this user's (a
 * signal may be sent to it: EPERM, another user's process that took the pid, is not), and the service there
 * proves it knows the file's nonce. Anything else is a stale or planted file, and ignored.
 */
export async function findAdvertisedService(dataDir: string): Promise<AdvertLookup> {
  const file = path.join(dataDir, FILE);
  const read = await readOwnerOnlyFile(file);
  if (read === null) return {};
  if ("refused" in read) return { ignored: `${file} ${read.refused}` };
  const advert = parseAdvert(read.text);
  if (advert === null) return { ignored: `${file} is not a service advert (url, pid, nonce)` };
  const url = loopbackOrigin(advert.url);
  if (url === null) return { ignored: `${file} names ${JSON.stringify(advert.url)}, not an http:// address on loopback` };
  if (!ownLiveProcess(advert.pid)) return { ignored: `${file} names process ${advert.pid}, which is not running as this user (a service that did not stop cleanly)` };
  if (!(await serviceConfirms(url, advert.nonce))) return { ignored: `the service at ${url} does not confirm that it wrote ${file}` };
  return { advert: { ...advert, url } };
}

/** Whether the service at `url` is ready and proves it holds `nonce`, to a challenge made for this call. */
export async function serviceConfirms(url: string, nonce: string): Promise<boolean> {
  const challenge = newToken();
  try {
    const answer = await fetch(`${url}/readyz`, { headers: { [CHALLENGE_HEADER]: challenge }, signal: AbortSignal.timeout(CONFIRM_TIMEOUT_MS) });
    await answer.body?.cancel();
    return answer.ok && proofMatches(nonce, challenge, answer.headers.get(PROOF_HEADER));
  } catch {
    return false;
  }
}

/** Whether process `pid` runs and this user may signal it: ESRCH (gone) and EPERM (another user's) are not ours. */
export function ownLiveProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `url`'s origin when it is plain http:// on a loopback address (127.0.0.0/8 or [::1]) with nothing after the port; else null. */
export function loopbackOrigin(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const loopback = /^127(\.\d{1,3}){3}$/.test(parsed.hostname) || parsed.hostname === "[::1]";
  const bare = parsed.username === "" && parsed.password === "" && parsed.pathname === "/" && parsed.search === "" && parsed.hash === "";
  return parsed.protocol === "http:" && loopback && bare ? parsed.origin : null;
}

function parseAdvert(text: string): ServiceAdvert | null {
  try {
    const value = JSON.parse(text) as Partial<ServiceAdvert>;
    const { url, pid, nonce } = value;
    return typeof url === "string" && Number.isInteger(pid) && (pid as number) > 0 && isToken(nonce) ? { url, pid: pid as number, nonce } : null;
  } catch {
    return null;
  }
}
