// Which errors mean "the database is not there right now" (down, restarting, unreachable, out of
// connections) rather than "this query is wrong". The HTTP layer answers them with 503, the worker
// waits for the database instead of giving up, start-up retries them.

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** SQLSTATEs: admin/crash shutdown, cannot connect now (starting up / shutting down), too many connections, statement timeout. */
const TRANSIENT_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "57014"]);

// node-postgres reports a broken or timed-out connection with plain Errors.
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout|database system is (starting up|shutting down)/;

/**
 * The database answers, but its schema is behind this code: nothing has migrated it yet (a worker started
 * before the API, which migrates). Like an outage it passes once the migration has run.
 */
export class SchemaNotMigrated extends Error {
  override name = "SchemaNotMigrated";
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 4) return false;
  if (error instanceof SchemaNotMigrated) return true;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || TRANSIENT_SQLSTATES.has(code) || code.startsWith("08"))) return true;
  if (typeof message === "string" && CONNECTION_MESSAGES.test(message)) return true;
  // Node reports a refused connection to every address of a host as an AggregateError.
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** What was wrong with a value PostgreSQL refused: text it cannot hold, too long or out of range, or no value of the type. */
export type RefusedValue = "text" | "range" | "syntax";

// SQLSTATEs of a value refused for what it is, whatever the query: a request's value no check caught.
const REFUSED_VALUE_SQLSTATES: Record<string, RefusedValue> = {
  "22021": "text", // character_not_in_repertoire: a NUL, bytes that are no UTF-8
  "22P05": "text", // untranslatable_character: no such character in the target encoding
  "22001": "range", // string_data_right_truncation: longer than its column
  "22003": "range", // numeric_value_out_of_range
  "22008": "range", // datetime_field_overflow
  "54000": "range", // program_limit_exceeded: an index row, an array or a string over PostgreSQL's own limits
  "22P02": "syntax", // invalid_text_representation: "abc" as an integer, a malformed uuid or JSON
  "22007": "syntax", // invalid_datetime_format
};

/** Why PostgreSQL refused a value (the error or its cause), or undefined when the error is of another kind. */
export function refusedValue(error: unknown, depth = 0): RefusedValue | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === "string" && Object.hasOwn(REFUSED_VALUE_SQLSTATES, code)) return REFUSED_VALUE_SQLSTATES[code];
  return refusedValue(cause, depth + 1);
}
