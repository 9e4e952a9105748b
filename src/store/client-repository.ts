import type { SqliteDatabase } from './database.js';

/** An OAuth client application registered with the service. */
export interface ClientRecord {
  id: string;
  name: string;
  /** SHA-256 (hex) of the client secret; null for public clients. */
  secretHash: string | null;
  isPublic: boolean;
  redirectUris: string[];
  createdAt: number;
}

interface ClientRow {
  id: string;
  name: string;
  secret_hash: string | null;
  is_public: number;
  redirect_uris: string;
  created_at: number;
}

const toRecord = (row: ClientRow): ClientRecord => ({
  id: row.id,
  name: row.name,
  secretHash: row.secret_hash,
  isPublic: row.is_public === 1,
  redirectUris: JSON.parse(row.redirect_uris) as string[],
  createdAt: row.created_at,
});

export class ClientRepository {
  private readonly byId;
  private readonly all;
  private readonly upsertStatement;

  constructor(db: SqliteDatabase) {
    this.byId = db.prepare<[string], ClientRow>('SELECT * FROM oauth_clients WHERE id = ?');
    this.all = db.prepare<[], ClientRow>('SELECT * FROM oauth_clients ORDER BY created_at, id');
    this.upsertStatement = db.prepare(
      `INSERT INTO oauth_clients (id, name, secret_hash, is_public, redirect_uris, created_at)
       VALUES (@id, @name, @secret_hash, @is_public, @redirect_uris, @created_at)
       ON CONFLICT(id) DO UPDATE SET name = excluded.name, secret_hash = excluded.secret_hash,
         is_public = excluded.is_public, redirect_uris = excluded.redirect_uris`,
    );
  }

  findById(id: string): ClientRecord | undefined {
    const row = this.byId.get(id);
    return row ? toRecord(row) : undefined;
  }

  list(): ClientRecord[] {
    return this.all.all().map(toRecord);
  }

  /** Inserts or replaces (by id) a client; used by the config sync and `client add`. */
  upsert(client: ClientRecord): void {
    this.upsertStatement.run({
      id: client.id,
      name: client.name,
      secret_hash: client.secretHash,
      is_public: client.isPublic ? 1 : 0,
      redirect_uris: JSON.stringify(client.redirectUris),
      created_at: client.createdAt,
    });
  }
}
