/**
 * Small numbers for the distinct field values of one batch of clicks, so that a combination of values
 * can be keyed by a few characters (`String.fromCharCode` of its numbers) instead of a long composite
 * string. The values are mostly the same string objects click after click (the ring reader's
 * dictionary), whose hashes V8 caches, so numbering one is a cheap map lookup; building, flattening,
 * hashing and comparing a composite key per click cost the writer thread more than the database did.
 */
export class BatchNumbers {
  readonly #numbers = new Map<string | number | null, number>();

  /**
   * Whether `count` more values are sure to get numbers that fit a character. Past that a caller spells
   * its key out instead, so two combinations never share a key.
   */
  fit(count: number): boolean {
    return this.#numbers.size + count < 0xffff;
  }

  of(value: string | number | null): number {
    let number = this.#numbers.get(value);
    if (number === undefined) {
      number = this.#numbers.size;
      this.#numbers.set(value, number);
    }
    return number;
  }
}
