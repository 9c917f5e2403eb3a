// Order statistics of timing samples: the bench reports medians and p90, never means
// (a shared 2-core machine produces long right tails).
export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly min: number;
  readonly max: number;
}

/** Nearest-rank quantile of already sorted values (q in [0, 1]). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Least-squares slope of y over x (units of y per unit of x). */
export function slope(points: readonly { readonly x: number; readonly y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? Number.NaN : num / den;
}

/** Milliseconds taken by `fn`. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}
