/**
 * The ids the service issues: a prefix, `_` and a ULID (26 characters of Crockford's base 32, upper case:
 * no I, L, O or U). A path naming anything else names nothing: 404 before any lookup.
 */
export const idPattern = (prefix: string): string => `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`;

export const JOB_ID_PATTERN = idPattern("job");
export const WEBHOOK_ENDPOINT_ID_PATTERN = idPattern("we");
