import type { SqliteDatabase } from './database.js';

/** Small service-wide values (for example the demo household's logins), stored as JSON. */
export class SettingsRepository {
  private readonly getStatement;
  private readonly setStatement;

  constructor(db: SqliteDatabase) {
    this.getStatement = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    this.setStatement = db.prepare<[string, string]>(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
  }

  /** The stored value, parsed; the caller knows (and checks) its shape. */
  get(key: string): unknown {
    const row = this.getStatement.get(key);
    return row ? (JSON.parse(row.value) as unknown) : undefined;
  }

  set(key: string, value: unknown): void {
    this.setStatement.run(key, JSON.stringify(value));
  }
}
