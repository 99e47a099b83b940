/** mulberry32: a failing fuzz run names the seed to replay. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const weighted = <T>(choices: readonly (readonly [T, number])[]): T => {
    let roll = next() * choices.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [value, weight] of choices) if ((roll -= weight) < 0) return value;
    return choices[choices.length - 1][0];
  };
  return { next, int, pick, weighted, chance: (p: number) => next() < p };
}

export type Rng = ReturnType<typeof prng>;
