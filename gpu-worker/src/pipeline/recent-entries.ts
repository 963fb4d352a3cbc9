/** A small cache, least recently used first: `get` moves an entry last, `set` drops the oldest beyond `limit`. */
export class Recent<V> {
  readonly #entries = new Map<string, V>();
  readonly #limit: number;
  readonly #onDrop: (key: string, value: V) => void;
  constructor(limit: number, onDrop: (key: string, value: V) => void = () => undefined) {
    this.#limit = limit;
    this.#onDrop = onDrop;
  }
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): V {
    this.#entries.set(key, value);
    for (const [oldest, dropped] of this.#entries) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(oldest);
      this.#onDrop(oldest, dropped);
    }
    return value;
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
}
