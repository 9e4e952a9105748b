import type { SqliteDatabase } from './database.js';

/** One webhook endpoint (docs/design.md §11). `secret` signs every delivery; the API shows it only once. */
export interface WebhookRecord {
  id: string;
  ownerId: string;
  url: string;
  /** Event types, or `['*']` for every one. */
  events: string[];
  /** The locks it is limited to; null: every lock its owner owns or administers. */
  lockIds: string[] | null;
  secret: string;
  state: 'active' | 'disabled';
  /** Why it is disabled; null while active. */
  disabledReason: string | null;
  /** Pending deliveries dropped because 1,000 were waiting. */
  droppedDeliveries: number;
  createdAt: number;
  updatedAt: number;
}

interface WebhookRow {
  id: string;
  owner_id: string;
  url: string;
  events: string;
  lock_ids: string | null;
  secret: string;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  dropped_deliveries: number;
  created_at: number;
  updated_at: number;
}

const toRecord = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  ownerId: row.owner_id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  lockIds: row.lock_ids === null ? null : (JSON.parse(row.lock_ids) as string[]),
  secret: row.secret,
  state: row.state,
  disabledReason: row.disabled_reason,
  droppedDeliveries: row.dropped_deliveries,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * The webhooks table. The active ones are read on every event (a handful in a home), so they are
 * kept in memory and read again after any write through this repository.
 */
export class WebhookRepository {
  private readonly insertStatement;
  private readonly byIdStatement;
  private readonly byOwnerStatement;
  private readonly activeStatement;
  private readonly countByOwnerStatement;
  private readonly deleteStatement;
  private readonly setStateStatement;
  private readonly addDroppedStatement;
  private active: WebhookRecord[] | undefined;

  constructor(db: SqliteDatabase) {
    this.insertStatement = db.prepare(
      `INSERT INTO webhooks (id, owner_id, url, events, lock_ids, secret, state, disabled_reason, dropped_deliveries, created_at, updated_at)
       VALUES (@id, @owner_id, @url, @events, @lock_ids, @secret, @state, @disabled_reason, @dropped_deliveries, @created_at, @updated_at)`,
    );
    this.byIdStatement = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE id = ?');
    this.byOwnerStatement = db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE owner_id = ? ORDER BY created_at, id');
    this.activeStatement = db.prepare<[], WebhookRow>("SELECT * FROM webhooks WHERE state = 'active' ORDER BY created_at, id");
    this.countByOwnerStatement = db.prepare<[string], number>('SELECT COUNT(*) FROM webhooks WHERE owner_id = ?').pluck(true);
    this.deleteStatement = db.prepare<[string]>('DELETE FROM webhooks WHERE id = ?');
    this.setStateStatement = db.prepare<[string, string | null, number, string]>('UPDATE webhooks SET state = ?, disabled_reason = ?, updated_at = ? WHERE id = ?');
    this.addDroppedStatement = db.prepare<[number, string]>('UPDATE webhooks SET dropped_deliveries = dropped_deliveries + ? WHERE id = ?');
  }

  insert(webhook: WebhookRecord): void {
    this.active = undefined;
    this.insertStatement.run({
      id: webhook.id,
      owner_id: webhook.ownerId,
      url: webhook.url,
      events: JSON.stringify(webhook.events),
      lock_ids: webhook.lockIds === null ? null : JSON.stringify(webhook.lockIds),
      secret: webhook.secret,
      state: webhook.state,
      disabled_reason: webhook.disabledReason,
      dropped_deliveries: webhook.droppedDeliveries,
      created_at: webhook.createdAt,
      updated_at: webhook.updatedAt,
    });
  }

  findById(id: string): WebhookRecord | undefined {
    const row = this.byIdStatement.get(id.toLowerCase());
    return row === undefined ? undefined : toRecord(row);
  }

  listByOwner(ownerId: string): WebhookRecord[] {
    return this.byOwnerStatement.all(ownerId).map(toRecord);
  }

  countByOwner(ownerId: string): number {
    return this.countByOwnerStatement.get(ownerId) ?? 0;
  }

  /** Every active webhook, from memory after the first read. */
  listActive(): readonly WebhookRecord[] {
    this.active ??= this.activeStatement.all().map(toRecord);
    return this.active;
  }

  delete(id: string): boolean {
    this.active = undefined;
    return this.deleteStatement.run(id.toLowerCase()).changes > 0;
  }

  /** Disables (with why) or enables a webhook. */
  setState(id: string, state: 'active' | 'disabled', reason: string | null, now: number): void {
    this.active = undefined;
    this.setStateStatement.run(state, reason, now, id);
  }

  /** Counts pending deliveries dropped past the bound. */
  addDropped(id: string, count: number): void {
    this.active = undefined;
    this.addDroppedStatement.run(count, id);
  }
}
