import type { Migration } from '../migration.js';

/**
 * Webhooks (docs/design.md §11, docs/webhooks.md). `webhooks`: one row per endpoint an owner added —
 * its URL, the event types it wants (JSON: a list, or `["*"]`), the locks it is limited to (JSON
 * list; NULL: every lock its owner owns or administers), and its `whsec_` secret, kept as given
 * because every delivery is signed with it (the database file is 0600 in a 0700 folder,
 * docs/security.md). `webhook_deliveries`: one row per event for an endpoint — its body exactly as
 * signed, so a retry sends the same bytes with the same `webhook-id` (its `id`); `seq` orders them
 * (newest first in the API). At most 1,000 pending rows per webhook (the oldest are dropped and
 * counted in `dropped_deliveries`) and the newest 1,000 finished ones are kept.
 */
export const webhooks: Migration = {
  version: 12,
  name: 'webhooks',
  sql: `
    CREATE TABLE webhooks (
      id                 TEXT PRIMARY KEY,
      owner_id           TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      url                TEXT NOT NULL,
      events             TEXT NOT NULL,
      lock_ids           TEXT,
      secret             TEXT NOT NULL,
      state              TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
      -- why it is disabled (the receiver answered 410 Gone); NULL while active
      disabled_reason    TEXT,
      dropped_deliveries INTEGER NOT NULL DEFAULT 0,
      created_at         INTEGER NOT NULL,
      updated_at         INTEGER NOT NULL
    );
    CREATE INDEX webhooks_by_owner ON webhooks (owner_id, created_at);

    CREATE TABLE webhook_deliveries (
      seq              INTEGER PRIMARY KEY AUTOINCREMENT,
      id               TEXT NOT NULL UNIQUE,
      webhook_id       TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      event_type       TEXT NOT NULL,
      payload          TEXT NOT NULL,
      status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts         INTEGER NOT NULL DEFAULT 0,
      last_status_code INTEGER,
      -- what went wrong at the last attempt, in words (no answer, refused, timed out); NULL after a 2xx
      last_error       TEXT,
      -- when the next attempt is due (epoch ms); NULL once delivered or failed
      next_attempt_at  INTEGER,
      created_at       INTEGER NOT NULL,
      updated_at       INTEGER NOT NULL
    );
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, status, seq);
  `,
};
