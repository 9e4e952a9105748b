/**
 * The fan-out (docs/design.md §11): one delivery per webhook that wants the event — its type, its
 * locks, an owner who manages the lock at that moment — stored off the caller's path, and at most
 * 1,000 pending per webhook (the oldest dropped and counted).
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, transactionRunner, type SqliteDatabase } from '../../../src/store/database.js';
import { WebhookRepository } from '../../../src/store/webhook-repository.js';
import { WebhookDeliveryRepository } from '../../../src/store/webhook-delivery-repository.js';
import { MAX_PENDING_PER_WEBHOOK, WebhookFanout } from '../../../src/webhooks/webhook-fanout.js';
import type { WebhookEvent } from '../../../src/webhooks/webhook-payloads.js';
import type { EKeyRole } from '../../../src/domain/ekey-permissions.js';
import { ManualClock } from '../../support/manual-clock.js';
import { RecordingLogger } from '../../support/recording-logger.js';

const OWNER = 'a0000000-0000-4000-8000-000000000001';
const FRONT = 'b0000000-0000-4000-8000-000000000001';
const BACK = 'b0000000-0000-4000-8000-000000000002';

const battery = (lockId: string, at = 1_000): WebhookEvent => ({ type: 'lock.battery_low', lock: { id: lockId, name: 'Front Door' }, level: 0.1, at });

describe('webhook fan-out', () => {
  let db: SqliteDatabase;
  let webhooks: WebhookRepository;
  let deliveries: WebhookDeliveryRepository;
  let roles: Map<string, EKeyRole>;
  let stored: number;
  let fanout: WebhookFanout;
  const logger = new RecordingLogger();

  const addWebhook = (id: string, events: string[], lockIds: string[] | null = null): void => { webhooks.insert({ id, ownerId: OWNER, url: 'http://127.0.0.1:9/x', events, lockIds, secret: 'whsec_x', state: 'active', disabledReason: null, droppedDeliveries: 0, createdAt: 0, updatedAt: 0 }); };

  beforeEach(() => {
    db = openDatabase(':memory:');
    db.prepare("INSERT INTO users (id, email, email_normalized, name, created_at) VALUES (?, 'o@example.com', 'o@example.com', 'Olivia', 0)").run(OWNER);
    webhooks = new WebhookRepository(db);
    deliveries = new WebhookDeliveryRepository(db);
    roles = new Map([[FRONT, 'owner']]);
    stored = 0;
    fanout = new WebhookFanout({
      webhooks,
      deliveries,
      access: { roleOn: (_userId, lockId) => roles.get(lockId) ?? null },
      clock: new ManualClock(5_000),
      logger,
      transaction: transactionRunner(db),
      stored: () => {
        stored += 1;
      },
    });
  });
  afterEach(() => {
    db.close();
  });

  it('stores nothing on the caller\'s turn, then one delivery per interested webhook in one go', async () => {
    addWebhook('w-all', ['*']);
    addWebhook('w-battery-back', ['lock.battery_low'], [BACK]);
    addWebhook('w-unlocked', ['lock.unlocked']);
    fanout.publish(battery(FRONT));
    expect(deliveries.listNewest('w-all', 10)).toHaveLength(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(deliveries.listNewest('w-all', 10).map((delivery) => delivery.eventType)).toEqual(['lock.battery_low']);
    expect(deliveries.listNewest('w-battery-back', 10)).toHaveLength(0);
    expect(deliveries.listNewest('w-unlocked', 10)).toHaveLength(0);
    expect(stored).toBe(1);
  });

  it('tells an owner only of locks they own or administer at that moment', () => {
    addWebhook('w-all', ['*']);
    roles.set(FRONT, 'guest');
    fanout.publish(battery(FRONT));
    roles.set(FRONT, 'admin');
    fanout.publish(battery(FRONT));
    fanout.flush();
    expect(deliveries.listNewest('w-all', 10)).toHaveLength(1);
  });

  it(`keeps at most ${MAX_PENDING_PER_WEBHOOK} pending deliveries per webhook: the oldest go, counted on the webhook, with one line`, () => {
    addWebhook('w-all', ['*']);
    for (let index = 0; index < MAX_PENDING_PER_WEBHOOK + 5; index += 1) fanout.publish(battery(FRONT, index));
    fanout.flush();
    const kept = deliveries.listNewest('w-all', 2_000);
    expect(kept).toHaveLength(MAX_PENDING_PER_WEBHOOK);
    // The newest stay: the oldest five (at 0..4) were dropped.
    expect(kept.map((delivery) => (JSON.parse(delivery.payload) as { timestamp: string }).timestamp).at(-1)).toBe(new Date(5).toISOString());
    expect(webhooks.findById('w-all')?.droppedDeliveries).toBe(5);
    expect(logger.lines.filter((line) => line.message.includes('5 pending deliveries dropped'))).toHaveLength(1);
  });
});
