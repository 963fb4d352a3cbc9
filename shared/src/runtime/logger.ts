import pino, { type Logger } from "pino";

/**
 * JSON lines on stdout, written asynchronously (a request log line must not cost a synchronous
 * write on the hot path); pino flushes what is pending when the process exits.
 */
export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: false }));
}

/**
 * A command-line tool's log: JSON lines on stderr, so that stdout carries only the command's result,
 * written synchronously so that nothing is lost when the tool exits.
 */
export function createCliLogger(level: string): Logger {
  return pino({ level }, pino.destination(2));
}
