import { Type, type Static } from 'typebox';
import { Uuid } from './common.js';
import { EVERY_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../webhooks/webhook-event-types.js';
import type { WebhookRecord } from '../../store/webhook-repository.js';
import type { WebhookDeliveryRecord } from '../../store/webhook-delivery-repository.js';

/*
 * Webhooks (docs/design.md §11, docs/webhooks.md): the owners' endpoints and their delivery log.
 * Not in the spec: our extension, in the spec's style (snake_case, ISO 8601 UTC with milliseconds).
 */

const EventTypeSchema = Type.String({
  maxLength: 64,
  description: `An event type (${WEBHOOK_EVENT_TYPES.join(', ')}), or "${EVERY_EVENT_TYPE}" for every one`,
});

const iso = (ms: number): string => new Date(ms).toISOString();

const webhookFields = {
  id: Type.String({ format: 'uuid', description: 'Webhook ID' }),
  url: Type.String({ description: 'Where deliveries are POSTed' }),
  events: Type.Array(Type.String(), { description: 'The event types it receives; ["*"]: every one' }),
  lock_ids: Type.Union([Type.Array(Type.String({ format: 'uuid' })), Type.Null()], {
    description: 'The locks it hears of; null: every lock its owner owns or administers',
  }),
  state: Type.Union([Type.Literal('active'), Type.Literal('disabled')], { description: 'disabled: the receiver answered 410 Gone (a manual retry enables it again)' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is disabled; null while active' }),
  dropped_deliveries: Type.Integer({ description: 'Pending deliveries dropped because 1,000 were already waiting (the oldest go first)' }),
  created_at: Type.String({ description: 'ISO 8601 UTC with milliseconds' }),
};

export const WebhookSchema = Type.Object(webhookFields, { $id: 'Webhook', additionalProperties: false });

export const CreatedWebhookSchema = Type.Object(
  {
    ...webhookFields,
    secret: Type.String({ description: 'whsec_ + base64 of 32 random bytes: the key of every signature. Shown in this answer only.' }),
  },
  { $id: 'CreatedWebhook', additionalProperties: false },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'The delivery\'s id: the webhook-id header of every attempt (msg_…)' }),
    event_type: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null before the first or when nothing answered' }),
    last_error: Type.Union([Type.String(), Type.Null()], { description: 'What went wrong at the last attempt, in words; null after a 2xx' }),
    next_attempt_at: Type.Union([Type.String(), Type.Null()], { description: 'When the next attempt is due; null once delivered or failed' }),
    created_at: Type.String(),
    payload: Type.String({ description: 'The body exactly as it is signed and sent' }),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const CreateWebhookBodySchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'An http:// or https:// address' }),
    events: Type.Array(EventTypeSchema, { minItems: 1, maxItems: 32 }),
    lock_ids: Type.Optional(Type.Union([Type.Array(Uuid, { maxItems: 100 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export type CreateWebhookBody = Static<typeof CreateWebhookBodySchema>;

export const WebhookParamsSchema = Type.Object({ webhook_id: Uuid });
export const DeliveryParamsSchema = Type.Object({ webhook_id: Uuid, delivery_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const DeliveriesQuerySchema = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) });

export function toWebhookBody(webhook: WebhookRecord): Static<typeof WebhookSchema> {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    lock_ids: webhook.lockIds,
    state: webhook.state,
    disabled_reason: webhook.disabledReason,
    dropped_deliveries: webhook.droppedDeliveries,
    created_at: iso(webhook.createdAt),
  };
}

export function toDeliveryBody(delivery: WebhookDeliveryRecord): Static<typeof WebhookDeliverySchema> {
  return {
    id: delivery.id,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: delivery.nextAttemptAt === null ? null : iso(delivery.nextAttemptAt),
    created_at: iso(delivery.createdAt),
    payload: delivery.payload,
  };
}
