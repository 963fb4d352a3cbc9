/** One Server-Sent Event's fields. */
export interface ServerSentEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * Splits a Server-Sent Events text stream into events, as EventSource reads it. Comment lines (`: heartbeat`)
 * are no events: `onComment`, if given, hears their text.
 */
export async function* serverSentEvents(body: AsyncIterable<Uint8Array>, onComment?: (text: string) => void): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let current: { id?: string; event?: string; data?: string } = {};
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (current.data !== undefined) yield { ...(current.id === undefined ? {} : { id: current.id }), event: current.event ?? "message", data: current.data };
        current = {};
        continue;
      }
      if (line.startsWith(":")) {
        onComment?.(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") current.data = current.data === undefined ? value : `${current.data}\n${value}`;
      else if (field === "id") current.id = value;
      else if (field === "event") current.event = value;
    }
  }
}
