import type { PortLockEvent } from '../lock-port/lock-port.js';
import type { WebhookEventType } from './webhook-event-types.js';

/*
 * What a webhook's body says of each event (docs/design.md §11, docs/webhooks.md): the Standard
 * Webhooks envelope `{"type","timestamp","data"}`, and in `data` the lock and, where there is one,
 * who (`user`: the name, as MQTT's `event` says it; `user_id`: the account) — pure, so the wording
 * is tested without a service.
 */

/** A lock as a payload names it. */
export interface PayloadLock {
  id: string;
  name: string;
}

/** A person as a payload names them; null where nobody is known. */
export interface PayloadUser {
  id: string;
  name: string;
}

/** Everything that can become a webhook delivery. */
export type WebhookEvent =
  | { type: 'lock.locked' | 'lock.unlocked' | 'lock.jammed' | 'opener.ring'; lock: PayloadLock; event: PortLockEvent }
  | { type: 'lock.battery_low'; lock: PayloadLock; level: number; at: number }
  | {
      type: 'door_code.set' | 'door_code.failed' | 'door_code.removed';
      lock: PayloadLock;
      ekeyId: string;
      holder: PayloadUser | null;
      enforcedBy: 'lock' | 'service';
      failureReason: string | null;
      at: number;
    }
  | { type: 'ekey.accepted' | 'ekey.revoked'; lock: PayloadLock; ekeyId: string; ekeyType: string; holder: PayloadUser | null; at: number }
  | {
      type: 'command.completed' | 'command.failed';
      lock: PayloadLock;
      commandId: string;
      commandType: string;
      requester: PayloadUser | null;
      origin: 'api' | 'homekit' | 'mqtt';
      failureReason: string | null;
      at: number;
    };

/** The envelope of every delivery. */
export interface WebhookBody {
  type: WebhookEventType;
  /** When it happened: ISO 8601 UTC with milliseconds. */
  timestamp: string;
  data: Record<string, unknown>;
}

const who = (user: PayloadUser | null): { user: string | null; user_id: string | null } => ({ user: user?.name ?? null, user_id: user?.id ?? null });

/** When the event happened, ms since the epoch. */
export function eventTime(event: WebhookEvent): number {
  return 'event' in event ? event.event.at : event.at;
}

/** The body a webhook receives for `event`. */
export function webhookBody(event: WebhookEvent): WebhookBody {
  return { type: event.type, timestamp: new Date(eventTime(event)).toISOString(), data: dataOf(event) };
}

function dataOf(event: WebhookEvent): Record<string, unknown> {
  const lock = { lock_id: event.lock.id, lock_name: event.lock.name };
  switch (event.type) {
    case 'lock.locked':
    case 'lock.unlocked': {
      const happened = event.event;
      return {
        ...lock,
        event_id: happened.eventId,
        ...who(happened.user),
        method: happened.method,
        ...(happened.doorCodeEkeyId === null ? {} : { door_code_ekey_id: happened.doorCodeEkeyId }),
        // docs/design.md §12: a rental stay's code typed at the keypad.
        ...(happened.booking === null ? {} : { booking: happened.booking }),
        ...(happened.unlatched ? { unlatched: true } : {}),
        ...(happened.mode === null ? {} : { mode: happened.mode }),
        ...(happened.commandId === null ? {} : { command_id: happened.commandId }),
      };
    }
    case 'lock.jammed':
      return { ...lock };
    case 'opener.ring':
      return { ...lock, event_id: event.event.eventId, opened: event.event.opened };
    case 'lock.battery_low':
      return { ...lock, battery_level: event.level, battery: Math.round(Math.min(1, Math.max(0, event.level)) * 100) };
    case 'door_code.set':
    case 'door_code.removed':
      return { ...lock, ekey_id: event.ekeyId, ...who(event.holder), enforced_by: event.enforcedBy };
    case 'door_code.failed':
      return { ...lock, ekey_id: event.ekeyId, ...who(event.holder), enforced_by: event.enforcedBy, failure_reason: event.failureReason };
    case 'ekey.accepted':
    case 'ekey.revoked':
      return { ...lock, ekey_id: event.ekeyId, ekey_type: event.ekeyType, ...who(event.holder) };
    case 'command.completed':
      return { ...lock, command_id: event.commandId, type: event.commandType, ...who(event.requester), origin: event.origin };
    case 'command.failed':
      return { ...lock, command_id: event.commandId, type: event.commandType, ...who(event.requester), origin: event.origin, failure_reason: event.failureReason };
  }
}
