/**
 * Extra Node.js flags for the processes a benchmark measures (the service of the HTTP scenarios,
 * Homebridge in the Homebridge scenarios), from `EKEY_BENCH_NODE_ARGS`, split on white space — so a
 * profile is taken of exactly the run that is measured, e.g.
 * `EKEY_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench -- --only footprint`
 * (Node writes one profile per thread, the service's worker thread included). Not for
 * `NODE_OPTIONS`: Node refuses `--cpu-prof` there. Empty when unset.
 */
export function benchNodeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.EKEY_BENCH_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
}
