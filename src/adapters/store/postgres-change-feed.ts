/**
 * The change feed on a PostgreSQL server: `LISTEN` on a connection of its own (a
 * pooled connection would be handed to other queries and its LISTEN lost), kept
 * open for the life of the process. When it drops — the server restarted, a
 * network partition, `pg_terminate_backend` — the feed stops being live at once
 * and reconnects with exponential backoff; once listening again it is live again.
 *
 * A connection can also die silently (a NAT or firewall forgetting it): a
 * heartbeat (`select 1` on the listening connection every {@link HEARTBEAT_MS})
 * that fails or takes longer than its timeout ends the connection, so a change can
 * be missed unseen for at most about two heartbeats.
 */
import { ExponentialBackoff, type IBackoff } from 'cockatiel';
import pg from 'pg';
import type { ChangeFeed, ChangeListener } from '../../ports/change-feed.js';
import { CHANGE_CHANNEL, ChangeListeners, parseChange } from './change-notifications.js';

const HEARTBEAT_MS = 2000;
const FIRST_RETRY_MS = 100;
const LONGEST_RETRY_MS = 5000;

export interface PostgresChangeFeedOptions {
  readonly connectionString: string;
  /** Connecting and each heartbeat (capped at the heartbeat interval); 3000 unless set. */
  readonly timeoutMs?: number;
  /** TCP keep-alive initial delay in seconds (0 = off); 10 unless set. */
  readonly keepAliveSeconds?: number;
  /** Tests shorten it. */
  readonly heartbeatMs?: number;
}

/**
 * Ends a connection politely, or destroys its socket after `ms`: a partitioned server
 * never acknowledges the goodbye, and a shutdown must not wait for TCP to give up.
 */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().then(
    () => true,
    () => true,
  );
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const done = await Promise.race([ended, late]);
  clearTimeout(timer);
  // pg keeps its socket as `connection.stream` (not in its types).
  if (!done) (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

export class PostgresChangeFeed implements ChangeFeed {
  private readonly listeners = new ChangeListeners();
  private readonly heartbeatMs: number;
  private readonly backoffs = new ExponentialBackoff({ initialDelay: FIRST_RETRY_MS, maxDelay: LONGEST_RETRY_MS });
  private client: pg.Client | undefined;
  private isLive = false;
  private closed = false;
  private started: Promise<void> | undefined;
  private backoff: IBackoff<unknown> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PostgresChangeFeedOptions) {
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  get live(): boolean {
    return this.isLive;
  }

  /** The backend pid of the listening connection (tests end it with `pg_terminate_backend`). */
  get listenerPid(): number | undefined {
    return (this.client as { processID?: number } | undefined)?.processID ?? undefined;
  }

  start(): Promise<void> {
    this.started ??= this.connect().catch((error: unknown) => {
      this.scheduleReconnect();
      throw error;
    });
    return this.started;
  }

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.heartbeatTimer);
    const client = this.client;
    this.client = undefined;
    this.isLive = false;
    if (client) await endWithin(client, this.options.timeoutMs ?? 3000);
  }

  private async connect(): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? 3000;
    const keepAliveSeconds = this.options.keepAliveSeconds ?? 10;
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: 'coregate-change-feed',
      connectionTimeoutMillis: timeoutMs,
      keepAlive: keepAliveSeconds > 0,
      keepAliveInitialDelayMillis: keepAliveSeconds * 1000,
    });
    // Installed before connecting: a connection lost at any point ends in `lost`.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || client !== this.client) return;
      const change = parseChange(message.payload);
      if (change) this.listeners.emit(change);
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`listen ${CHANGE_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      throw error;
    }
    if (this.closed || client !== this.client) {
      await endWithin(client, this.options.timeoutMs ?? 3000);
      return;
    }
    this.backoff = undefined;
    this.isLive = true;
    this.listeners.emit({ kind: 'feed', live: true });
    this.scheduleHeartbeat(client);
  }

  /** The listening connection failed: not live from now on; connect again unless closing. */
  private lost(client: pg.Client, error: unknown): void {
    if (client !== this.client) return;
    this.client = undefined;
    clearTimeout(this.heartbeatTimer);
    client.removeAllListeners('notification');
    // Whatever state the socket is in, it is not used again.
    void endWithin(client, this.options.timeoutMs ?? 3000);
    if (this.isLive) {
      this.isLive = false;
      this.listeners.emit({ kind: 'feed', live: false, error });
    }
    if (!this.closed && this.started) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer !== undefined || this.client !== undefined) return;
    this.backoff = this.backoff ? this.backoff.next(undefined) : this.backoffs.next();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      // A failure is `lost` again, which schedules the next attempt.
      this.connect().catch(() => {});
    }, this.backoff.duration);
    this.retryTimer.unref();
  }

  private scheduleHeartbeat(client: pg.Client): void {
    this.heartbeatTimer = setTimeout(() => void this.heartbeat(client), this.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  private async heartbeat(client: pg.Client): Promise<void> {
    const ms = Math.min(this.options.timeoutMs ?? 3000, this.heartbeatMs);
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the listening connection did not answer a heartbeat within ${ms} ms`)),
        ms,
      );
    });
    try {
      const answer = client.query('select 1');
      answer.catch(() => {});
      await Promise.race([answer, silent]);
      if (client === this.client) this.scheduleHeartbeat(client);
    } catch (error) {
      this.lost(client, error);
    } finally {
      clearTimeout(timer);
    }
  }
}
