import { Type } from 'typebox';
import type { ProtectedRouteContext } from './route-context.js';
import { protectedErrors } from '../schemas/common.js';
import { emptyResponse } from '../openapi-responses.js';
import {
  CreateWebhookBodySchema,
  DeliveriesQuerySchema,
  DeliveryParamsSchema,
  WebhookParamsSchema,
  toDeliveryBody,
  toWebhookBody,
} from '../schemas/webhook.js';

/**
 * The owners' webhooks (docs/design.md §11, docs/webhooks.md). Translation only: the webhook
 * service decides who may do what (only owners add one; everyone sees only their own; another
 * user's webhook is 404).
 */
export function registerWebhookRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;
  const callerId = (request: Parameters<typeof context.callerOf>[0]): string => context.callerOf(request).userId;

  app.post(
    '/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Add a webhook',
        description:
          'Only a user who owns a lock (403 `webhooks_need_owner` otherwise). `events`: event types or ["*"]; `lock_ids`: locks the caller owns or ' +
          'administers (left out or null: every one of them, now and later). Answers 201 with the webhook and its `secret` (whsec_…), ' +
          'which no other answer shows. Deliveries are signed the Standard Webhooks way (docs/webhooks.md). 409 `too_many_webhooks` past 20.',
        body: CreateWebhookBodySchema,
        response: { 201: Type.Ref('CreatedWebhook'), ...protectedErrors, 403: Type.Ref('Problem'), 409: Type.Ref('Problem'), 415: Type.Ref('Problem') },
      },
    },
    async (request, reply) => {
      const webhook = services.webhooks.add(callerId(request), request.body);
      return reply.status(201).send({ ...toWebhookBody(webhook), secret: webhook.secret });
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'The caller\'s webhooks',
        description: 'Oldest first, without their secrets.',
        response: { 200: Type.Array(Type.Ref('Webhook')), ...protectedErrors },
      },
    },
    (request) => services.webhooks.list(callerId(request)).map(toWebhookBody),
  );

  app.get(
    '/webhooks/:webhook_id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'One of the caller\'s webhooks',
        params: WebhookParamsSchema,
        response: { 200: Type.Ref('Webhook'), ...protectedErrors },
      },
    },
    (request) => toWebhookBody(services.webhooks.get(callerId(request), request.params.webhook_id)),
  );

  app.delete(
    '/webhooks/:webhook_id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook',
        description: 'Its pending deliveries are not sent; its delivery log goes with it.',
        params: WebhookParamsSchema,
        response: { 204: emptyResponse('Deleted'), ...protectedErrors },
      },
    },
    async (request, reply) => {
      services.webhooks.remove(callerId(request), request.params.webhook_id);
      return reply.status(204).send();
    },
  );

  app.get(
    '/webhooks/:webhook_id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'A webhook\'s deliveries, newest first',
        description: 'The newest 1,000 finished deliveries and every pending one are kept.',
        params: WebhookParamsSchema,
        querystring: DeliveriesQuerySchema,
        response: { 200: Type.Array(Type.Ref('WebhookDelivery')), ...protectedErrors },
      },
    },
    (request) => services.webhooks.deliveries(callerId(request), request.params.webhook_id, request.query.limit).map(toDeliveryBody),
  );

  app.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a delivery again now',
        description:
          'The same body with the same webhook-id (a new timestamp and signature). Works on a failed or delivered one too; a webhook ' +
          'disabled by 410 Gone is enabled again. Answers 202 with the delivery, now pending.',
        params: DeliveryParamsSchema,
        response: { 202: Type.Ref('WebhookDelivery'), ...protectedErrors },
      },
    },
    async (request, reply) => {
      const delivery = services.webhooks.retry(callerId(request), request.params.webhook_id, request.params.delivery_id);
      return reply.status(202).send(toDeliveryBody(delivery));
    },
  );
}
