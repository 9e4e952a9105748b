// Preload (`node --import ./scripts/loop-delay-probe.mjs …`) that measures the event-loop delay
// of the main thread at 1 ms resolution (perf_hooks.monitorEventLoopDelay). Each SIGUSR2 appends
// the window since the previous one to the file named by EKEY_LOOP_PROBE as one JSON line
// ({"p50_ms","p99_ms","max_ms","mean_ms","samples"}) and starts a new window; `<file>.pid`
// holds the pid. Used by
// test/e2e/homekit/homebridge-fsync.test.ts to compare an idle bridge with a burst.
import { appendFileSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const out = process.env.EKEY_LOOP_PROBE;
// Preloads run in worker threads too: only Homebridge's own (main) thread is measured.
if (out && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The main thread's pid, for whoever sends the signal (`<file>.pid`).
  writeFileSync(`${out}.pid`, `${process.pid}\n`);
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  process.on('SIGUSR2', () => {
    const window = {
      p50_ms: ms(histogram.percentile(50)),
      p99_ms: ms(histogram.percentile(99)),
      max_ms: ms(histogram.max),
      mean_ms: ms(histogram.mean),
      samples: histogram.count,
    };
    histogram.reset();
    appendFileSync(out, `${JSON.stringify(window)}\n`);
  });
}
