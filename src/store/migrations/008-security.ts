import type { Migration } from '../migration.js';

/**
 * Security rules (docs/design.md §9b):
 * - an invitation lives only while it has a pending eKey: `closed_at` is set in the transaction
 *   that revokes or purges its last pending key, and a closed invitation creates no account;
 * - "Forgot your password?" links: single use, 30 minutes; only the SHA-256 of the link's token
 *   is stored, as for every other secret.
 */
export const security: Migration = {
  version: 8,
  name: 'security',
  sql: `
    ALTER TABLE invitations ADD COLUMN closed_at INTEGER;

    CREATE TABLE password_resets (
      token_hash TEXT PRIMARY KEY,
      user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at INTEGER NOT NULL,
      used_at    INTEGER,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX password_resets_user ON password_resets(user_id);
  `,
};
