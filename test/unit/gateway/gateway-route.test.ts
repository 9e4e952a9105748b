import { describe, expect, it } from '@jest/globals';
import type { Hearing } from '../../../src/gateway/transports/composite/gateway-hearings.js';
import { HEARD_WITHIN_MS, connectOrder } from '../../../src/gateway/transports/composite/gateway-route.js';

/* Which gateway a connect goes to first (docs/architecture.md "Transports"), as a table. */

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const GATEWAYS = ['host', 'hall', 'attic'];

function heard(table: Record<string, [rssi: number | null, agoMs: number]>): (gateway: string) => Hearing | undefined {
  return (gateway) => {
    const entry = table[gateway];
    return entry === undefined ? undefined : { rssi: entry[0], seenAt: NOW - entry[1] };
  };
}

describe('connectOrder', () => {
  const cases: { name: string; hearings: Record<string, [number | null, number]>; allowed?: string[]; expected: string[] }[] = [
    { name: 'nobody heard it: every gateway, in the configured order', hearings: {}, expected: ['host', 'hall', 'attic'] },
    { name: 'the strongest signal first, then the others that heard it; not the ones that did not', hearings: { host: [-80, 1_000], hall: [-50, 5_000] }, expected: ['hall', 'host'] },
    { name: 'the host wins a tie', hearings: { attic: [-60, 0], host: [-60, 0], hall: [-60, 0] }, expected: ['host', 'hall', 'attic'] },
    { name: 'among proxies, a tie goes by the configured order', hearings: { attic: [-60, 0], hall: [-60, 0] }, expected: ['hall', 'attic'] },
    { name: 'an unknown signal counts as the weakest', hearings: { host: [null, 0], hall: [-95, 0] }, expected: ['hall', 'host'] },
    { name: 'a hearing exactly 60 s old still counts', hearings: { hall: [-70, HEARD_WITHIN_MS] }, expected: ['hall'] },
    { name: 'an older one does not: as if nobody heard it', hearings: { hall: [-70, HEARD_WITHIN_MS + 1] }, expected: ['host', 'hall', 'attic'] },
    { name: 'old hearings drop out, recent ones stay', hearings: { host: [-40, HEARD_WITHIN_MS + 1], attic: [-90, 10] }, expected: ['attic'] },
    { name: 'the allow-list leaves out a stronger gateway it does not name', hearings: { host: [-40, 0], hall: [-70, 0] }, allowed: ['hall', 'attic'], expected: ['hall'] },
    { name: 'the allow-list when nobody heard it: its gateways, in the configured order', hearings: {}, allowed: ['attic', 'host'], expected: ['host', 'attic'] },
    { name: 'an allow-list naming no configured gateway: none', hearings: { host: [-40, 0] }, allowed: ['garage'], expected: [] },
  ];

  for (const { name, hearings, allowed, expected } of cases) {
    it(name, () => {
      expect(connectOrder({ gateways: GATEWAYS, heard: heard(hearings), now: NOW, allowed })).toEqual(expected);
    });
  }
});
