import { describe, expect, it } from '@jest/globals';
import { benchNodeArgs } from '../../../src/bench/profile-args.js';

describe('benchNodeArgs (EKEY_BENCH_NODE_ARGS)', () => {
  it('is empty when the variable is unset or blank', () => {
    expect(benchNodeArgs({})).toEqual([]);
    expect(benchNodeArgs({ EKEY_BENCH_NODE_ARGS: '  \t ' })).toEqual([]);
  });

  it('splits the flags on white space, in order', () => {
    expect(benchNodeArgs({ EKEY_BENCH_NODE_ARGS: ' --cpu-prof  --cpu-prof-dir=/tmp/p\t--max-old-space-size=64 ' })).toEqual([
      '--cpu-prof',
      '--cpu-prof-dir=/tmp/p',
      '--max-old-space-size=64',
    ]);
  });
});
