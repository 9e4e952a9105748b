import type { Migration } from '../migration.js';

/** Users, OAuth clients, authorization codes, tokens, and a key/value table for service settings. */
export const usersAndOauth: Migration = {
  version: 1,
  name: 'users-and-oauth',
  sql: `
    CREATE TABLE settings (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );

    CREATE TABLE users (
      id               TEXT PRIMARY KEY,
      email            TEXT NOT NULL,
      email_normalized TEXT NOT NULL UNIQUE,
      name             TEXT NOT NULL,
      -- NULL while the user is only invited (cannot log in yet)
      password_hash    TEXT,
      -- NULL = unlimited eKeys may be sent
      ekey_quota       INTEGER,
      can_send_ekeys   INTEGER NOT NULL DEFAULT 1,
      created_at       INTEGER NOT NULL
    );

    CREATE TABLE oauth_clients (
      id            TEXT PRIMARY KEY,
      name          TEXT NOT NULL,
      -- SHA-256 of the secret; NULL for public clients
      secret_hash   TEXT,
      is_public     INTEGER NOT NULL DEFAULT 0,
      redirect_uris TEXT NOT NULL,
      created_at    INTEGER NOT NULL
    );

    CREATE TABLE oauth_codes (
      code_hash             TEXT PRIMARY KEY,
      client_id             TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
      user_id               TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      redirect_uri          TEXT NOT NULL,
      code_challenge        TEXT,
      code_challenge_method TEXT,
      expires_at            INTEGER NOT NULL,
      used_at               INTEGER,
      created_at            INTEGER NOT NULL
    );

    CREATE TABLE oauth_tokens (
      id          TEXT PRIMARY KEY,
      kind        TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
      token_hash  TEXT NOT NULL UNIQUE,
      -- every token descended from one authorization code shares a family
      family_id   TEXT NOT NULL,
      code_hash   TEXT,
      client_id   TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
      user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at  INTEGER,
      -- set when a refresh token has been exchanged (rotation)
      used_at     INTEGER,
      revoked_at  INTEGER,
      created_at  INTEGER NOT NULL
    );
    CREATE INDEX oauth_tokens_family ON oauth_tokens(family_id);
    CREATE INDEX oauth_tokens_code ON oauth_tokens(code_hash);
  `,
};
