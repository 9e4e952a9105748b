import type { BenchScenario } from '../scenario.js';
import { getMe } from './get-me.js';

/**
 * Every benchmark scenario, in the order `npm run bench` runs them. Planned: `command-roundtrip`,
 * `events-page`, `event-ingest`, `homekit-set` — one file each beside get-me.ts.
 */
export const scenarios: readonly BenchScenario[] = [getMe];
