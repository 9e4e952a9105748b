/**
 * The web app's words for webhooks (web/src/webhooks.ts): a delivery's state in one sentence with
 * its times in the lock's zone (docs/design.md §7), when Retry is offered, the lock a payload names.
 */
import { describe, expect, it } from '@jest/globals';
import { canRetry, deliveryLock, deliveryStatusText, deliveryStatusWords, eventsText, type WebhookDelivery } from '../../../web/src/webhooks.js';

const delivery = (fields: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  event_type: 'lock.unlocked',
  status: 'pending',
  attempts: 0,
  last_status_code: null,
  last_error: null,
  next_attempt_at: null,
  created_at: '2026-05-01T17:03:12.345Z',
  payload: JSON.stringify({ type: 'lock.unlocked', timestamp: '2026-05-01T17:03:12.345Z', data: { lock_id: 'l-1', lock_name: 'Front Door' } }),
  ...fields,
});

describe('a delivery in words', () => {
  it('says each state, with the next attempt on the lock’s clock', () => {
    expect(deliveryStatusText(delivery({ next_attempt_at: '2026-05-01T17:03:12.345Z' }), 'Europe/Berlin')).toBe('Waiting to be sent. Next attempt Fri 1 May 2026, 19:03 (Europe/Berlin).');
    expect(deliveryStatusText(delivery({ attempts: 2, last_status_code: 500, last_error: 'answered 500', next_attempt_at: '2026-05-01T17:08:17Z' }), 'UTC')).toBe(
      'Not delivered yet after 2 attempts: the receiver answered with code 500. Next attempt Fri 1 May 2026, 17:08 (UTC).',
    );
    expect(deliveryStatusText(delivery({ status: 'failed', attempts: 7, last_error: 'no answer within 15 s' }), 'UTC')).toBe('Not delivered after 7 attempts: no answer within 15 s.');
    expect(deliveryStatusText(delivery({ status: 'failed', attempts: 1, last_status_code: 500, last_error: 'the webhook is disabled' }), 'UTC')).toBe(
      'Not delivered after 1 attempt: it was not sent: the webhook is switched off.',
    );
    expect(deliveryStatusText(delivery({ status: 'delivered', attempts: 1, last_status_code: 204 }), 'UTC')).toBe('Delivered after 1 attempt: the receiver answered with code 204.');
    expect([delivery({}), delivery({ attempts: 1 }), delivery({ status: 'failed' }), delivery({ status: 'delivered' })].map(deliveryStatusWords)).toEqual([
      'Sending',
      'Trying again',
      'Failed',
      'Delivered',
    ]);
  });

  it('offers Retry on a failed delivery and one waiting after a failed attempt, not on one delivered or never tried', () => {
    expect([delivery({ status: 'failed' }), delivery({ attempts: 1 }), delivery({}), delivery({ status: 'delivered', attempts: 1 })].map(canRetry)).toEqual([true, true, false, false]);
  });

  it('finds the lock a payload names, and none in one that names none', () => {
    expect(deliveryLock(delivery({}))).toEqual({ id: 'l-1', name: 'Front Door' });
    expect(deliveryLock(delivery({ payload: '{"type":"x","data":{}}' }))).toBeUndefined();
    expect(deliveryLock(delivery({ payload: 'not json' }))).toBeUndefined();
  });

  it('names a webhook’s events', () => {
    expect(eventsText(['*'])).toBe('Every event');
    expect(eventsText(['lock.unlocked', 'door_code.set', 'something.new'])).toBe('Unlocked, Door code set, something.new');
  });
});
