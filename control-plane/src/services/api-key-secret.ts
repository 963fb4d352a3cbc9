import { createHash, randomBytes } from "node:crypto";

// Key format: cap_<prefix>_<secret>. The prefix finds the row; only the SHA-256 of the whole key is stored.
const KEY_PATTERN = /^cap_([a-z0-9]{12})_([A-Za-z0-9_-]{32,64})$/;

export interface GeneratedKey {
  key: string;
  prefix: string;
  secretHash: string;
}

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export function generateApiKey(): GeneratedKey {
  const prefix = randomBytes(9).toString("base64url").toLowerCase().replace(/[^a-z0-9]/g, "0").slice(0, 12);
  const key = `cap_${prefix}_${randomBytes(24).toString("base64url")}`;
  return { key, prefix, secretHash: hashApiKey(key) };
}

/** The lookup prefix of a well-formed key, or null. */
export function apiKeyPrefix(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}
