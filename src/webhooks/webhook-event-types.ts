/**
 * The event types a webhook can ask for (docs/design.md §11, docs/webhooks.md), dot-delimited as
 * Standard Webhooks recommends, named as Seam names lock events. `*` asks for every one.
 */
export const WEBHOOK_EVENT_TYPES = [
  'lock.locked',
  'lock.unlocked',
  'lock.jammed',
  'lock.battery_low',
  'opener.ring',
  'door_code.set',
  'door_code.failed',
  'door_code.removed',
  'ekey.accepted',
  'ekey.revoked',
  'command.completed',
  'command.failed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What `events` of a webhook asks for: every type. */
export const EVERY_EVENT_TYPE = '*';

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);

/** Whether a webhook that asked for `events` wants `type`. */
export const wantsEventType = (events: readonly string[], type: WebhookEventType): boolean => events.includes(EVERY_EVENT_TYPE) || events.includes(type);
