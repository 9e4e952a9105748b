import type { Clock } from '../domain/clock.js';
import type { EKeyRole } from '../domain/ekey-permissions.js';
import { conflict, forbidden, notFound, validationFailed, type FieldError } from '../domain/errors.js';
import { newId, normalizeId } from '../domain/ids.js';
import type { WebhookDeliveryRecord, WebhookDeliveryRepository } from '../store/webhook-delivery-repository.js';
import type { WebhookRecord, WebhookRepository } from '../store/webhook-repository.js';
import { EVERY_EVENT_TYPE, isWebhookEventType } from './webhook-event-types.js';
import { newWebhookSecret } from './webhook-signature.js';

/** How many webhooks one owner may have. */
export const MAX_WEBHOOKS_PER_OWNER = 20;
/** Longest URL accepted. */
const MAX_URL_LENGTH = 2048;
/** Most deliveries `GET /webhooks/{id}/deliveries` answers at once. */
export const MAX_DELIVERY_PAGE = 1000;

/** What `POST /webhooks` asks for. */
export interface AddWebhookRequest {
  url: string;
  events: string[];
  lock_ids?: string[] | null;
}

/** What the webhook service reads of the locks and the caller's roles on them. */
export interface WebhookAccess {
  /** Every lock the service has (configured, not retired). */
  lockIds(): string[];
  /** The user's role on the lock at `atMs`, from their usable keys (owner, admin, guest), or null. */
  roleOn(userId: string, lockId: string, atMs: number): EKeyRole | null;
}

export interface WebhookServiceDependencies {
  webhooks: WebhookRepository;
  deliveries: WebhookDeliveryRepository;
  access: WebhookAccess;
  clock: Clock;
  transaction: <T>(work: () => T) => T;
  /** Called after a delivery was made due again (the sender tries it at once). */
  onRetry: () => void;
}

const manages = (role: EKeyRole | null): boolean => role === 'owner' || role === 'admin';

/**
 * Webhooks as their owners manage them (docs/design.md §11): only a user who owns a lock adds one,
 * and a webhook hears only of locks its owner owns or administers. Everyone sees only their own
 * webhooks: another user's is 404, as is everything of a webhook one cannot see.
 */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDependencies) {}

  /**
   * `POST /webhooks`: a new webhook and its secret, which this answer alone carries.
   * 403 `webhooks_need_owner` for a caller who owns no lock; 400 for a URL that is not http(s), an
   * unknown event type, or a lock the caller does not own or administer; 409 past
   * {@link MAX_WEBHOOKS_PER_OWNER}.
   */
  add(callerId: string, request: AddWebhookRequest): WebhookRecord {
    const now = this.deps.clock.now();
    if (!this.deps.access.lockIds().some((lockId) => this.deps.access.roleOn(callerId, lockId, now) === 'owner')) {
      throw forbidden('webhooks_need_owner', 'Only the owner of a lock can add webhooks.');
    }
    const errors: FieldError[] = [];
    const url = checkUrl(request.url);
    if (url.error !== undefined) errors.push({ field: '/url', message: url.error });
    const events = [...new Set(request.events)];
    if (events.length === 0) errors.push({ field: '/events', message: 'must name at least one event type, or "*" for every one' });
    events.forEach((type, index) => {
      if (type !== EVERY_EVENT_TYPE && !isWebhookEventType(type)) errors.push({ field: `/events/${index}`, message: `"${type}" is not an event type` });
    });
    let lockIds: string[] | null = null;
    if (request.lock_ids !== undefined && request.lock_ids !== null) {
      lockIds = [...new Set(request.lock_ids.map(normalizeId))];
      const known = new Set(this.deps.access.lockIds());
      request.lock_ids.forEach((lockId, index) => {
        const id = normalizeId(lockId);
        // A lock the caller cannot see reads the same as one they only hold a key of: existence is never told.
        if (!known.has(id) || !manages(this.deps.access.roleOn(callerId, id, now))) errors.push({ field: `/lock_ids/${index}`, message: 'is not a lock you own or administer' });
      });
      if (lockIds.length === 0) errors.push({ field: '/lock_ids', message: 'must name at least one lock, or be left out for every lock' });
    }
    if (errors.length > 0) throw validationFailed(errors);
    const webhook: WebhookRecord = {
      id: newId(),
      ownerId: callerId,
      url: request.url,
      events: events.includes(EVERY_EVENT_TYPE) ? [EVERY_EVENT_TYPE] : events,
      lockIds,
      secret: newWebhookSecret(),
      state: 'active',
      disabledReason: null,
      droppedDeliveries: 0,
      createdAt: now,
      updatedAt: now,
    };
    this.deps.transaction(() => {
      if (this.deps.webhooks.countByOwner(callerId) >= MAX_WEBHOOKS_PER_OWNER) {
        throw conflict('too_many_webhooks', `You have ${MAX_WEBHOOKS_PER_OWNER} webhooks already; delete one first.`);
      }
      this.deps.webhooks.insert(webhook);
    });
    return webhook;
  }

  /** `GET /webhooks`: the caller's own, oldest first. */
  list(callerId: string): WebhookRecord[] {
    return this.deps.webhooks.listByOwner(callerId);
  }

  /** `GET /webhooks/{id}`: 404 unless it is the caller's. */
  get(callerId: string, webhookId: string): WebhookRecord {
    const webhook = this.deps.webhooks.findById(webhookId);
    if (webhook === undefined || webhook.ownerId !== callerId) throw notFound('webhook');
    return webhook;
  }

  /** `DELETE /webhooks/{id}`: the webhook and its deliveries (pending ones are not sent). */
  remove(callerId: string, webhookId: string): void {
    const webhook = this.get(callerId, webhookId);
    this.deps.webhooks.delete(webhook.id);
  }

  /** `GET /webhooks/{id}/deliveries`: newest first. */
  deliveries(callerId: string, webhookId: string, limit = 100): WebhookDeliveryRecord[] {
    const webhook = this.get(callerId, webhookId);
    return this.deps.deliveries.listNewest(webhook.id, Math.min(Math.max(1, limit), MAX_DELIVERY_PAGE));
  }

  /**
   * `POST /webhooks/{id}/deliveries/{delivery_id}/retry`: the delivery is due again at once, with
   * the same id and body (a delivered one too: a redelivery). A webhook disabled by a `410 Gone` is
   * enabled again by it: the owner asked for this attempt.
   */
  retry(callerId: string, webhookId: string, deliveryId: string): WebhookDeliveryRecord {
    const webhook = this.get(callerId, webhookId);
    const now = this.deps.clock.now();
    const delivery = this.deps.deliveries.find(webhook.id, deliveryId);
    if (delivery === undefined) throw notFound('delivery');
    this.deps.transaction(() => {
      if (webhook.state === 'disabled') this.deps.webhooks.setState(webhook.id, 'active', null, now);
      this.deps.deliveries.retry(webhook.id, delivery.id, now);
    });
    this.deps.onRetry();
    return this.deps.deliveries.find(webhook.id, deliveryId) ?? delivery;
  }
}

/** Whether a URL is an absolute http(s) one without credentials, as the sender can call it; why not otherwise. */
function checkUrl(raw: string): { error?: string } {
  if (raw.length > MAX_URL_LENGTH) return { error: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: 'must be an address like https://example.com/hooks/locks' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: 'must start with http:// or https://' };
  if (url.username !== '' || url.password !== '') return { error: 'must not hold a user name or password (the signature proves who sent the delivery)' };
  return {};
}
