/** The recent part of a sample stream, addressed by absolute sample index. */
export class SampleHistory {
  #buffer = new Float32Array(1 << 16);
  /** Position of the oldest held sample in #buffer. */
  #head = 0;
  /** Absolute index of the oldest held sample. */
  #start = 0;
  #length = 0;

  /** Absolute index one past the last sample appended. */
  get end(): number {
    return this.#start + this.#length;
  }

  append(samples: Float32Array): void {
    const needed = this.#length + samples.length;
    if (this.#head + needed > this.#buffer.length) {
      // Compacting moves each sample at most once per doubling, so appends stay amortised O(1).
      let capacity = this.#buffer.length;
      while (capacity < needed * 2) capacity *= 2;
      if (capacity === this.#buffer.length) {
        this.#buffer.copyWithin(0, this.#head, this.#head + this.#length);
      } else {
        const grown = new Float32Array(capacity);
        grown.set(this.#buffer.subarray(this.#head, this.#head + this.#length));
        this.#buffer = grown;
      }
      this.#head = 0;
    }
    this.#buffer.set(samples, this.#head + this.#length);
    this.#length = needed;
  }

  /** Copy of [from, to), clamped to what is still held. */
  slice(from: number, to: number): Float32Array {
    const a = Math.max(from, this.#start) - this.#start;
    const b = Math.min(to, this.end) - this.#start;
    return b > a ? this.#buffer.slice(this.#head + a, this.#head + b) : new Float32Array(0);
  }

  /** Forgets samples before `index`. */
  dropBefore(index: number): void {
    const drop = Math.min(Math.max(index - this.#start, 0), this.#length);
    this.#head += drop;
    this.#start += drop;
    this.#length -= drop;
  }
}
