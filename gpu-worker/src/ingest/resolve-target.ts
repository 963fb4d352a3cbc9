import { JobFailure } from "@caption/shared/errors/codes";
import { parseHttpsUrl, resolveTarget as resolveSafeTarget, UnsafeTargetError, type ResolvedTarget } from "@caption/shared/net/resolve-target";

// Ingest's view of the shared SSRF policy (shared/src/net): the same checks, its refusals as job failures.

export type { ResolvedTarget };

const LABEL = { label: "video URL" };

function asJobFailure(error: unknown): unknown {
  if (!(error instanceof UnsafeTargetError)) return error;
  return new JobFailure(error.kind === "unresolvable" ? "VIDEO_UNREACHABLE" : "URL_NOT_ALLOWED", error.message, { cause: error.cause });
}

/** Parses the URL and allows only HTTPS (URL_NOT_ALLOWED otherwise). */
export function parseVideoUrl(raw: string): URL {
  try {
    return parseHttpsUrl(raw, LABEL);
  } catch (error) {
    throw asJobFailure(error);
  }
}

/**
 * Resolves the URL's host once and applies the SSRF policy to every address it has, so the
 * download can connect to a checked address and a second lookup cannot swap it (DNS rebinding).
 */
export async function resolveTarget(url: URL, opts: { signal: AbortSignal; allowPrivateAddresses: boolean }): Promise<ResolvedTarget> {
  try {
    return await resolveSafeTarget(url, { ...opts, ...LABEL });
  } catch (error) {
    throw asJobFailure(error);
  }
}
