import type { BenchScenario, SelfMeasuringScenario } from '../scenario.js';
import { getMe } from './get-me.js';
import { eventsPage } from './events-page.js';
import { eventIngest } from './event-ingest.js';
import { commandRoundtrip, commandRoundtripNuki, commandRoundtripProxy } from './command-roundtrip.js';
import { homekitSet } from './homekit-set.js';
import { loopDelay } from './loop-delay.js';
import { footprint } from './footprint.js';
import { piBudget } from './pi-budget.js';
import { doorCodeSync } from './door-code-sync.js';
import { eventFanout } from './event-fanout.js';

/** Every benchmark scenario of docs/design.md §8, in the order `npm run bench` runs them. */
export const scenarios: readonly (BenchScenario | SelfMeasuringScenario)[] = [
  getMe,
  eventsPage,
  eventIngest,
  commandRoundtrip,
  commandRoundtripNuki,
  commandRoundtripProxy,
  homekitSet,
  loopDelay,
  footprint,
  piBudget,
  doorCodeSync,
  eventFanout,
];
