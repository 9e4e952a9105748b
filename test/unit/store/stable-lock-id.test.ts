import { describe, expect, it } from '@jest/globals';
import { isUuid, stableId } from '../../../src/domain/ids.js';
import { configuredLockId, legacyNameLockId } from '../../../src/config/config-sync.js';

/** Locks configured without an id are stored under an id derived from their address or name. */
describe('stableId', () => {
  it('is a version-5-layout UUID with the RFC 9562 variant', () => {
    const id = stableId('ekey-locks:lock', 'D0:E1:00:00:00:01');
    expect(isUuid(id)).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('is the same for the same namespace and name, across calls', () => {
    expect(stableId('ns', 'Front Door')).toBe(stableId('ns', 'Front Door'));
  });

  it('pins the derivation, so ids survive upgrades', () => {
    // Changing this value would re-key every lock configured without an id.
    expect(stableId('ekey-locks:lock', 'D0:E1:00:00:00:01')).toBe('3bd4b828-69d8-53d4-9335-f3f4914caf9e');
  });

  it('differs by namespace and by name', () => {
    expect(stableId('ns', 'a')).not.toBe(stableId('ns', 'b'));
    expect(stableId('ns', 'a')).not.toBe(stableId('other', 'a'));
  });
});

describe('configuredLockId', () => {
  it('keeps an explicit id, lower-cased', () => {
    expect(configuredLockId({ id: 'AAAAAAAA-0000-4000-8000-00000000000A', name: 'x' })).toBe('aaaaaaaa-0000-4000-8000-00000000000a');
  });

  it('derives the id from the BLE address in any case, never from the name (docs/design.md §9)', () => {
    expect(configuredLockId({ address: 'd0:e1:00:00:00:01', name: 'Front' })).toBe(configuredLockId({ address: 'D0:E1:00:00:00:01', name: 'Back' }));
    expect(configuredLockId({ name: 'Front Door' })).toBeUndefined();
  });

  it('knows the name-derived id earlier versions gave a lock with neither id nor address (kept for existing installations)', () => {
    expect(legacyNameLockId('Front Door')).toBe(stableId('ekey-locks:lock', 'FRONT DOOR'));
  });
});
