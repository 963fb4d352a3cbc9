import pino, { type Logger } from "pino";

// Lines are gathered up to this many bytes, or for this long, before one write: at thousands of requests a
// second a write per access-log line was the API's largest single cost after the sockets themselves.
const BUFFER_BYTES = 4096;
const FLUSH_EVERY_MS = 100;

/**
 * JSON lines on stdout, written asynchronously and in batches (a request log line must not cost a write on
 * the hot path); pino flushes what is pending when the process exits.
 */
export function createLogger(level: string, name: string): Logger {
  const destination = pino.destination({ sync: false, minLength: BUFFER_BYTES });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  return pino({ level, name, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

/**
 * A command-line tool's log: JSON lines on stderr, so that stdout carries only the command's result,
 * written synchronously so that nothing is lost when the tool exits.
 */
export function createCliLogger(level: string): Logger {
  return pino({ level }, pino.destination(2));
}
