import { median } from './stats.js';

/** One round: the service and the baseline measured back to back. */
export interface Pair<T> {
  service: T;
  baseline: T;
  /** The service's rate over the baseline's in this round. */
  ratio: number;
}

/** What {@link pairedRounds} returns: every pair and the headline ratio. */
export interface PairedResult<T> {
  pairs: Pair<T>[];
  /** docs/design.md §8: the median of the per-round ratios, never a best-of or a ratio of separate picks. */
  ratio: number;
}

/**
 * docs/design.md §8 "a ratio is the median of paired rounds": each round measures the service and the
 * baseline back to back (even rounds baseline first, odd rounds service first, so a drift of the
 * machine's load does not always favour one side), computes one ratio from that pair, and the
 * headline is the median of those ratios. A busy spell then spoils one pair, not the headline.
 */
export async function pairedRounds<T>(
  rounds: number,
  measureService: () => Promise<T>,
  measureBaseline: () => Promise<T>,
  rate: (result: T) => number,
  onPair?: (pair: Pair<T>, index: number) => void,
): Promise<PairedResult<T>> {
  const pairs: Pair<T>[] = [];
  for (let index = 0; index < rounds; index += 1) {
    let service: T;
    let baseline: T;
    if (index % 2 === 0) {
      baseline = await measureBaseline();
      service = await measureService();
    } else {
      service = await measureService();
      baseline = await measureBaseline();
    }
    const baselineRate = rate(baseline);
    const pair = { service, baseline, ratio: baselineRate > 0 ? rate(service) / baselineRate : 0 };
    pairs.push(pair);
    onPair?.(pair, index);
  }
  if (pairs.length === 0) throw new Error('no rounds were measured');
  return { pairs, ratio: median(pairs.map((pair) => pair.ratio)) };
}
