import type { BenchScenario, SelfMeasuringScenario } from '../scenario.js';
import { getMe } from './get-me.js';
import { eventsPage } from './events-page.js';
import { eventIngest } from './event-ingest.js';
import { commandRoundtrip, commandRoundtripNuki } from './command-roundtrip.js';
import { homekitSet } from './homekit-set.js';

/**
 * Every benchmark scenario, in the order `npm run bench` runs them. Planned: `command-roundtrip`,
 * `events-page`, `event-ingest`, `homekit-set` — one file each beside get-me.ts.
 */
export const scenarios: readonly (BenchScenario | SelfMeasuringScenario)[] = [getMe, eventsPage, eventIngest, commandRoundtrip, commandRoundtripNuki, homekitSet];
