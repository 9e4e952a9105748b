/**
 * Webhooks as the app shows them (docs/design.md §11, docs/webhooks.md): the API's bodies, the
 * event types in words, and a delivery's state in one sentence (docs/design.md §7: plain words).
 */
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../src/webhooks/webhook-event-types.js';
import { whenText } from './time.js';

export { WEBHOOK_EVENT_TYPES, type WebhookEventType };

/** `GET /webhooks`: one of the caller's webhooks (src/api/schemas/webhook.ts). */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  lock_ids: string[] | null;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  dropped_deliveries: number;
  created_at: string;
}

/** `POST /webhooks`: the new webhook and its secret, which no other answer carries. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

/** `GET /webhooks/{id}/deliveries`: one delivery, newest first. */
export interface WebhookDelivery {
  id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  payload: string;
}

/** What `events` holds for "every event, also ones added later". */
export const EVERY_EVENT = '*';

/** Each event type in words, for the checkboxes and the delivery log. */
export const EVENT_WORDS: Readonly<Record<WebhookEventType, string>> = {
  'lock.locked': 'Locked',
  'lock.unlocked': 'Unlocked',
  'lock.jammed': 'Jammed',
  'lock.battery_low': 'Battery low',
  'opener.ring': 'Ring at an Opener',
  'door_code.set': 'Door code set',
  'door_code.failed': 'Door code failed',
  'door_code.removed': 'Door code removed',
  'ekey.accepted': 'eKey accepted',
  'ekey.revoked': 'eKey revoked',
  'command.completed': 'Command completed',
  'command.failed': 'Command failed',
};

/** An event type in words; an unknown one as it is. */
export const eventWords = (type: string): string => (EVENT_WORDS as Readonly<Record<string, string>>)[type] ?? type;

/** A webhook's event types in words: "Every event", or "Unlocked, Door code set". */
export const eventsText = (events: readonly string[]): string => (events.includes(EVERY_EVENT) ? 'Every event' : events.map(eventWords).join(', '));

/** The lock a delivery is about (every payload's `data` names it), when it says. */
export function deliveryLock(delivery: WebhookDelivery): { id: string; name: string } | undefined {
  try {
    const body = JSON.parse(delivery.payload) as { data?: { lock_id?: unknown; lock_name?: unknown } };
    const id = body.data?.lock_id;
    const name = body.data?.lock_name;
    return typeof id === 'string' && typeof name === 'string' ? { id, name } : undefined;
  } catch {
    return undefined;
  }
}

/** What went wrong at the last attempt, in words. */
function lastProblem(delivery: WebhookDelivery): string {
  if (delivery.last_error === 'the webhook is disabled') return 'it was not sent: the webhook is switched off';
  if (delivery.last_status_code !== null) return `the receiver answered with code ${delivery.last_status_code}`;
  return delivery.last_error ?? 'the receiver did not answer';
}

/** The delivery's state in one short word or two, for its badge. */
export function deliveryStatusWords(delivery: WebhookDelivery): string {
  switch (delivery.status) {
    case 'delivered':
      return 'Delivered';
    case 'failed':
      return 'Failed';
    case 'pending':
      return delivery.attempts === 0 ? 'Sending' : 'Trying again';
  }
}

/** The delivery's state in one sentence, times in `zone`. */
export function deliveryStatusText(delivery: WebhookDelivery, zone: string): string {
  const tries = delivery.attempts === 1 ? '1 attempt' : `${delivery.attempts} attempts`;
  switch (delivery.status) {
    case 'delivered':
      return `Delivered after ${tries}${delivery.last_status_code === null ? '' : `: the receiver answered with code ${delivery.last_status_code}`}.`;
    case 'failed':
      return `Not delivered after ${tries}: ${lastProblem(delivery)}.`;
    case 'pending': {
      const next = delivery.next_attempt_at === null ? '' : ` Next attempt ${whenText(delivery.next_attempt_at, zone)}.`;
      return delivery.attempts === 0 ? `Waiting to be sent.${next}` : `Not delivered yet after ${tries}: ${lastProblem(delivery)}.${next}`;
    }
  }
}

/** Whether the owner may send it again by hand: a failed one, or one waiting after a failed attempt. */
export const canRetry = (delivery: WebhookDelivery): boolean => delivery.status === 'failed' || (delivery.status === 'pending' && delivery.attempts > 0);
