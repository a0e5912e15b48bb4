/**
 * Named prepared statements on PGlite's single backend, spoken in the extended query
 * protocol (PostgreSQL's "Message Flow: Extended Query"). `PGlite.query()` parses, describes
 * and plans every statement again, unnamed; a store sends the same few texts all day, so each
 * text is parsed once under a name and then only bound and executed, with its plan reused as
 * PostgreSQL's own plan cache decides (docs/benchmarks.md has what this saves).
 *
 * Not safe on its own: the caller (`pglite-database.ts`) makes sure nothing else uses the
 * backend between a statement's messages, and that no statement runs inside another
 * caller's transaction.
 */
import { protocol, types, type PGlite } from '@electric-sql/pglite';

const { serialize } = protocol;

/** What the backend said of a statement when it was parsed: its parameter and column types. */
interface Prepared {
  /** `''` is the unnamed statement: parsed again at each use. */
  readonly name: string;
  readonly paramTypes: readonly number[];
  readonly columns: readonly { readonly name: string; readonly typeId: number }[];
}

interface BackendMessage {
  readonly name: string;
  readonly dataTypeIDs?: number[];
  readonly fields?: unknown[];
}

/**
 * Statements kept by name at most; past that a new text runs unnamed (parsed each time), so
 * texts built at run time cannot grow the backend's memory without bound.
 */
const MAX_NAMED_STATEMENTS = 200;

/** SQLSTATE 0A000 with this message: a table changed under a prepared statement (DDL). */
const PLAN_CHANGED = /cached plan must not change result type/;

export class PgliteStatements {
  private readonly named = new Map<string, Prepared>();
  private nextId = 0;

  constructor(private readonly db: PGlite) {}

  /** Runs `text` with `params` and gives its rows, parsed as `PGlite.query()` would. */
  async run<Row>(text: string, params: readonly unknown[]): Promise<Row[]> {
    try {
      return await this.runOnce<Row>(text, params);
    } catch (error) {
      if (!PLAN_CHANGED.test((error as Error).message ?? '')) throw error;
      await this.forget(text);
      return this.runOnce<Row>(text, params);
    }
  }

  private async runOnce<Row>(text: string, params: readonly unknown[]): Promise<Row[]> {
    const statement = this.named.get(text) ?? (await this.prepare(text));
    const values = params.map((value, index) => this.serialize(value, statement.paramTypes[index]));
    const parse = statement.name === '' ? [serialize.parse({ text })] : [];
    const { messages } = await this.db.execProtocol(
      concat([
        ...parse,
        serialize.bind({ statement: statement.name, values }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    return rowsOf<Row>(messages, statement.columns, this.db.parsers);
  }

  /** Parses and describes `text`: under a new name while there is room, else unnamed. */
  private async prepare(text: string): Promise<Prepared> {
    const name = this.named.size < MAX_NAMED_STATEMENTS ? `coregate_${(this.nextId++).toString(36)}` : '';
    const { messages } = await this.db.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    let paramTypes: number[] = [];
    let columns: Prepared['columns'] = [];
    for (const message of messages as BackendMessage[]) {
      if (message.name === 'parameterDescription') paramTypes = message.dataTypeIDs ?? [];
      if (message.name === 'rowDescription') {
        columns = (message.fields as { name: string; dataTypeID: number }[]).map((field) => ({
          name: field.name,
          typeId: field.dataTypeID,
        }));
      }
    }
    const prepared = { name, paramTypes, columns };
    if (name !== '') this.named.set(text, prepared);
    return prepared;
  }

  private async forget(text: string): Promise<void> {
    const statement = this.named.get(text);
    if (statement === undefined) return;
    this.named.delete(text);
    await this.db.execProtocol(concat([serialize.close({ type: 'S', name: statement.name }), serialize.sync()]), {
      syncToFs: false,
    });
  }

  /** A parameter as `PGlite.query()` sends it: through the serializer of its type, else as text. */
  private serialize(value: unknown, typeId: number | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serializer = typeId === undefined ? undefined : this.db.serializers[typeId];
    // Without a serializer PGlite's query() sends the value's own text form, as this does.
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the same text PGlite would send
    return serializer ? serializer(value) : String(value);
  }
}

function rowsOf<Row>(
  messages: readonly BackendMessage[],
  columns: Prepared['columns'],
  parsers: PGlite['parsers'],
): Row[] {
  const rows: Row[] = [];
  for (const message of messages) {
    if (message.name !== 'dataRow') continue;
    const fields = message.fields as (string | null)[];
    const row: Record<string, unknown> = {};
    for (let index = 0; index < columns.length; index++) {
      const column = columns[index]!;
      const value = fields[index] ?? null;
      row[column.name] = value === null ? null : types.parseType(value, column.typeId, parsers);
    }
    rows.push(row as Row);
  }
  return rows;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}
