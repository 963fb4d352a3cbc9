import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

// A local service proves it is the process that wrote DATA_DIR/service.json (or the one a caption command
// started) without giving its secret away: the client sends a fresh challenge to /readyz and the service
// answers with an HMAC of it keyed by the nonce only the two of them know. Echoing the nonce itself would let
// anyone who asked /readyz once answer for the service after it died, on its port.

export const CHALLENGE_HEADER = "X-Caption-Challenge";
export const PROOF_HEADER = "X-Caption-Proof";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** 32 random bytes, base64url: a service's nonce, or a client's challenge. */
export const newToken = (): string => randomBytes(32).toString("base64url");
export const isToken = (value: unknown): value is string => typeof value === "string" && TOKEN.test(value);

/** The service's answer to `challenge`. */
export const identityProof = (nonce: string, challenge: string): string => createHmac("sha256", nonce).update(challenge).digest("base64url");

/** Whether `proof` is the answer to `challenge` of the service holding `nonce`. */
export function proofMatches(nonce: string, challenge: string, proof: string | null): boolean {
  if (proof === null) return false;
  const expected = Buffer.from(identityProof(nonce, challenge));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
