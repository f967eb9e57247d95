// Deterministic choices for the benches' data sets: every run and every store sees the same clicks.

/** mulberry32: a small, fast seeded PRNG returning numbers in [0, 1). */
export function prng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = (random, items) => items[Math.floor(random() * items.length)];

/** Earlier items are more likely: a rough power law, like real traffic. */
export const skewed = (random, items) => items[Math.floor(random() ** 2.2 * items.length)];
