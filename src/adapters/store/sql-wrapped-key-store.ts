import type { WrappedKeyStore } from '../../ports/wrapped-key-store.js';
import type { Database } from './database.js';

export class SqlWrappedKeyStore implements WrappedKeyStore {
  constructor(private readonly db: Database) {}

  async read(label: string): Promise<string | undefined> {
    const rows = await this.db.query<{ wrapped: string }>(
      `select wrapped from wrapped_encryption_keys where wrapping_key_label = $1`,
      [label],
    );
    return rows[0]?.wrapped;
  }

  async storeFirst(label: string, wrapped: string, now: Date): Promise<string> {
    await this.db.query(
      `insert into wrapped_encryption_keys (wrapping_key_label, wrapped, created_at) values ($1, $2, $3)
       on conflict (wrapping_key_label) do nothing`,
      [label, wrapped, now],
    );
    return (await this.read(label))!;
  }
}
