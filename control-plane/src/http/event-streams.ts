/**
 * The Server-Sent Events streams this process has open, so that stopping the server can end them:
 * an open stream would otherwise keep its connection, and the server's close, waiting for ever.
 */
export interface EventStreams {
  add(end: () => void): () => void;
  endAll(): void;
  /** Streams open now. */
  size(): number;
}

export function createEventStreams(): EventStreams {
  const open = new Set<() => void>();
  return {
    add(end) {
      open.add(end);
      return () => void open.delete(end);
    },
    endAll() {
      for (const end of [...open]) end();
      open.clear();
    },
    size: () => open.size,
  };
}
