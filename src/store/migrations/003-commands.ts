import type { Migration } from '../migration.js';

/** Remote lock commands (docs/design.md §3 Commands) and the observed online status of locks (docs/design.md §3 Locks). */
export const commands: Migration = {
  version: 3,
  name: 'commands',
  sql: `
    CREATE TABLE commands (
      id              TEXT PRIMARY KEY,
      lock_id         TEXT NOT NULL REFERENCES locks(id) ON DELETE CASCADE,
      type            TEXT NOT NULL CHECK (type IN ('lock', 'unlock')),
      status          TEXT NOT NULL CHECK (status IN ('created', 'processing', 'completed', 'failed')),
      failure_reason  TEXT CHECK (failure_reason IN ('jammed', 'timeout', 'delivery_failed', 'lock_offline', 'interrupted', 'superseded')),
      requested_by    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      -- where the request came from: 'api' or 'homekit'
      origin          TEXT NOT NULL DEFAULT 'api',
      -- the client's Idempotency-Key header, scoped to the requester
      idempotency_key TEXT,
      created_at      INTEGER NOT NULL,
      -- when the command was handed to the gateway
      started_at      INTEGER,
      -- when it reached a terminal state (completed or failed)
      completed_at    INTEGER
    );
    CREATE INDEX commands_lock ON commands(lock_id, created_at);
    CREATE INDEX commands_unfinished ON commands(status) WHERE status IN ('created', 'processing');
    CREATE INDEX commands_idempotency ON commands(requested_by, idempotency_key, created_at) WHERE idempotency_key IS NOT NULL;

    -- kept current by the lock runtime from the gateway's reachability (docs/design.md §3 Locks "online")
    ALTER TABLE locks ADD COLUMN online_status TEXT NOT NULL DEFAULT 'offline' CHECK (online_status IN ('online', 'offline'));
  `,
};
