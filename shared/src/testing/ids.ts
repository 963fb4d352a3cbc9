import { randomInt } from "node:crypto";

const ULID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A fresh id of the shape the service issues (`job_`, `we_`, `upl_`… and 26 characters of a ULID's alphabet):
 * a test's own rows have to be reachable through the routes, which refuse any other shape with 404.
 */
export const testId = (prefix: string): string => `${prefix}_${Array.from({ length: 26 }, () => ULID_ALPHABET[randomInt(ULID_ALPHABET.length)]).join("")}`;
