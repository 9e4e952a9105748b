import { describe, expect, it } from '@jest/globals';
import { portEventOfStored } from '../../../src/locks/lock-event-feed.js';
import { eventMessage } from '../../../src/mqtt/mqtt-lock-values.js';
import type { StoredEvent } from '../../../src/store/event-repository.js';
import { webhookBody } from '../../../src/webhooks/webhook-payloads.js';

/**
 * docs/design.md §12 (issue #36): a keypad entry with a rental stay's code is an unlock without a
 * performer whose event names the booking. The house's other systems hear the same: the lock
 * port's event carries it, so MQTT's `event` message and the webhooks' `lock.unlocked` say which
 * stay it was; an entry by an eKey's code (or a tap) says nothing of a booking.
 */

const AT = Date.parse('2026-07-04T15:02:00Z');
const BOOKING = { uid: 'HMABCD1234@airbnb.com', summary: 'Reserved' };

function stored(overrides: Partial<StoredEvent>): StoredEvent {
  return {
    seq: 7,
    id: 'a0c4f1de-5b7e-4f43-9d0e-0b8a3d3c9f11',
    lockId: 'c2aabce8-72ea-4954-8191-68ebc75da477',
    type: 'unlock',
    performerId: null,
    performerName: null,
    occurredAt: AT,
    value: null,
    detail: null,
    source: 'tap',
    ekeyId: null,
    commandId: null,
    lockSequence: 12,
    flagged: false,
    recordedAt: AT + 5,
    ...overrides,
  };
}

const lock = { id: 'c2aabce8-72ea-4954-8191-68ebc75da477', name: 'Side Door' };

describe('a booking\'s keypad entry, as the adapters tell it', () => {
  const entry = portEventOfStored(stored({ detail: { via: 'keypad', booking: BOOKING } }), () => undefined);

  it('is an unlock at the keypad by nobody, with the booking, on the lock port', () => {
    expect(entry).toMatchObject({ kind: 'unlocked', user: null, method: 'keypad', booking: BOOKING, doorCodeEkeyId: null });
  });

  it('names the stay in MQTT\'s event message and in the webhook\'s lock.unlocked', () => {
    if (entry === null) throw new Error('no port event');
    expect(eventMessage(entry)).toEqual({ event_type: 'unlocked', user: null, via: 'keypad', booking: BOOKING, at: '2026-07-04T15:02:00.000Z' });
    const body = webhookBody({ type: 'lock.unlocked', lock, event: entry });
    expect(body.data).toMatchObject({ lock_id: lock.id, lock_name: 'Side Door', user: null, method: 'keypad', booking: BOOKING });
  });

  it('says nothing of a booking for an eKey\'s code or a tap', () => {
    const byCode = portEventOfStored(stored({ performerId: 'u1', performerName: 'Alex Adams', ekeyId: 'k1', detail: { via: 'keypad' } }), () => undefined);
    const byTap = portEventOfStored(stored({ performerId: 'u1', performerName: 'Alex Adams', ekeyId: 'k1' }), () => undefined);
    for (const event of [byCode, byTap]) {
      if (event === null) throw new Error('no port event');
      expect(event.booking).toBeNull();
      expect(eventMessage(event)).not.toHaveProperty('booking');
      expect(webhookBody({ type: 'lock.unlocked', lock, event }).data).not.toHaveProperty('booking');
    }
    expect(byCode?.doorCodeEkeyId).toBe('k1');
  });
});
