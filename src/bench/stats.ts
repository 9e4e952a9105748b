/** Small statistics shared by the scenarios. */

/** The value at percentile `p` (0–100) of ascending `sorted` (nearest rank); 0 when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** The median (mean of the middle two for an even count); 0 when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** `value` rounded to `digits` decimals, as a number (for the JSON lines). */
export const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Bytes → MiB, two decimals. */
export const mebibytes = (bytes: number): number => round(bytes / (1024 * 1024), 2);
