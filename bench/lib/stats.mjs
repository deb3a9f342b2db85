/** Median, min and max of a list of numbers. */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1), samples };
}

/** Per-round ratios of two configurations measured side by side, summarized. */
export function ratio(numerator, denominator) {
  return summarize(numerator.map((value, round) => value / denominator[round]));
}
