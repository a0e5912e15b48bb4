/**
 * The schema, as an ordered list of migrations. Each runs once, in a transaction,
 * on PostgreSQL and on PGlite alike. Never edit a released migration: add one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** Single statements, run in order (PGlite's extended protocol takes one statement per query). */
  readonly statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'clients, refresh tokens, signing keys',
    statements: [
      `create table clients (
        id text primary key,
        name text not null,
        platform text not null,
        scopes text[] not null,
        grants text[] not null,
        allowed_ips text[] not null default '{}',
        enabled boolean not null default true,
        secret_digest text not null,
        created_at timestamptz not null,
        secret_rotated_at timestamptz not null,
        updated_at timestamptz not null
      )`,
      `create index clients_platform on clients (platform)`,
      `create table refresh_tokens (
        digest text primary key,
        client_id text not null references clients (id) on delete cascade,
        chain_id text not null,
        scope text not null,
        issued_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz,
        revoked_at timestamptz
      )`,
      `create index refresh_tokens_chain on refresh_tokens (chain_id)`,
      `create index refresh_tokens_expiry on refresh_tokens (expires_at)`,
      `create table signing_keys (
        kid text primary key,
        alg text not null,
        public_jwk jsonb not null,
        private_sealed text not null,
        created_at timestamptz not null,
        retired_at timestamptz,
        publish_until timestamptz
      )`,
      // At most one active key, enforced by the database so that two processes
      // starting on an empty database cannot both create one.
      `create unique index signing_keys_one_active on signing_keys ((true)) where retired_at is null`,
    ],
  },
  {
    version: 2,
    name: 'customer associations with sealed delegate reference IDs',
    statements: [
      `create table associations (
        platform text not null,
        customer_id text not null,
        customer_key text not null,
        delegate_sealed text not null,
        delegate_key_id text not null,
        expires_at timestamptz not null,
        needs_reregistration boolean not null default false,
        version integer not null default 1,
        renewal_owner text,
        renewal_lease_until timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        primary key (platform, customer_id)
      )`,
      `create index associations_customer_key on associations (platform, customer_key)`,
    ],
  },
  {
    version: 3,
    name: 'append-only audit log',
    statements: [
      // No foreign keys: the log outlives the clients and associations it names.
      `create table audit_log (
        id bigint generated always as identity primary key,
        occurred_at timestamptz not null,
        event_type text not null,
        outcome text not null check (outcome in ('success', 'failure')),
        reason text,
        actor text not null check (actor in ('client', 'operator')),
        client_id text,
        platform text,
        customer_id text,
        request_id text
      )`,
      // `audit list` filters by platform, by customer, by time, and reads newest first.
      `create index audit_log_occurred on audit_log (occurred_at, id)`,
      `create index audit_log_platform on audit_log (platform, occurred_at, id)`,
      `create index audit_log_customer on audit_log (customer_id, occurred_at, id)`,
      // Append-only, enforced by the database itself: whatever connects can add rows, never change or remove them.
      `create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_log is append-only: % is not allowed', tg_op using errcode = '42501';
      end
      $$`,
      `create trigger audit_log_no_update_or_delete before update or delete on audit_log
        for each row execute function audit_log_append_only()`,
      `create trigger audit_log_no_truncate before truncate on audit_log
        for each statement execute function audit_log_append_only()`,
    ],
  },
  {
    version: 4,
    name: 'institutions: several banks, clients and associations per institution',
    statements: [
      // The core settings of `default` come from the configuration, not from here: its row
      // exists so that clients can reference it and an operator can rename or disable it.
      `create table institutions (
        id text primary key check (id ~ '^[a-z0-9-]{1,64}$'),
        name text not null,
        core_url text,
        core_api_key_sealed text,
        core_api_key_key_id text,
        core_ca_file text,
        core_cert_file text,
        core_key_file text,
        core_timeout_ms integer,
        enabled boolean not null default true,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`,
      `insert into institutions (id, name, enabled, created_at, updated_at) values ('default', 'Default institution', true, now(), now())`,
      // Existing clients and associations belong to `default`, through the column default.
      `alter table clients add column institution text not null default 'default' references institutions (id)`,
      `alter table associations add column institution text not null default 'default'`,
      `alter table associations drop constraint associations_pkey`,
      `alter table associations add primary key (institution, platform, customer_id)`,
      `drop index if exists associations_customer_key`,
      `create index associations_customer_key on associations (institution, platform, customer_key)`,
      // A constant default fills existing rows without rewriting them (no UPDATE, so the
      // append-only trigger is not involved); new rows then name their institution or none.
      `alter table audit_log add column institution text default 'default'`,
      `alter table audit_log alter column institution drop default`,
    ],
  },
  {
    version: 5,
    name: 'webhook endpoints and the transactional outbox of their deliveries',
    statements: [
      `create table webhook_endpoints (
        id text primary key,
        platform text not null,
        url text not null,
        events text[] not null default '{}',
        secret_sealed text not null,
        secret_key_id text not null,
        previous_secret_sealed text,
        previous_secret_until timestamptz,
        enabled boolean not null default true,
        disabled_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`,
      `create index webhook_endpoints_platform on webhook_endpoints (platform)`,
      // One row per event, written in the transaction of the change that causes it.
      `create table webhook_events (
        id text primary key,
        type text not null,
        platform text not null,
        -- The exact body sent (and signed), kept as text so every retry sends the same bytes.
        payload text not null,
        created_at timestamptz not null
      )`,
      // One row per (event, endpoint): the outbox the dispatcher leases from.
      `create table webhook_deliveries (
        id text primary key,
        -- Insertion order, for listings (several deliveries share a created_at).
        seq bigint generated always as identity,
        event_id text not null references webhook_events (id) on delete cascade,
        endpoint_id text not null references webhook_endpoints (id) on delete cascade,
        status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
        attempts integer not null default 0,
        last_status integer,
        last_error text,
        next_attempt_at timestamptz not null,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz not null,
        delivered_at timestamptz
      )`,
      `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`,
      `create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at)`,
    ],
  },
  {
    version: 6,
    name: 'aggregated audit rows of unauthenticated refusals',
    statements: [
      // Refusals before authentication (no token, a bad token, an unknown client) are audited
      // one row per source address, event type and reason per minute, with how many (docs/behaviour.md#audit-log):
      // a flood writes a bounded number of rows. Both columns are null on every other row.
      `alter table audit_log add column count integer`,
      `alter table audit_log add column source_ip text`,
    ],
  },
  {
    version: 7,
    name: 'client secret grace period',
    statements: [
      // `clients rotate-secret --grace SECONDS` (README.md#operator-cli): the previous secret's digest keeps working until then.
      `alter table clients add column previous_secret_digest text`,
      `alter table clients add column previous_secret_until timestamptz`,
    ],
  },
  {
    version: 8,
    name: 'change notifications',
    statements: [
      // Every committed change of a client, an institution or a signing key is
      // announced on the channel `coregate_changes` (CHANGE_CHANNEL in change-notifications.ts),
      // whatever process or tool wrote it, so that every process drops its cached copy at once.
      // Sent by the writing transaction: delivered when it commits, never when it rolls back.
      // TG_ARGV: the kind of row, and the column that identifies it.
      `create function coregate_notify_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('coregate_changes', json_build_object(
          'kind', tg_argv[0],
          'id', (case when tg_op = 'DELETE' then to_jsonb(old) else to_jsonb(new) end) ->> tg_argv[1]
        )::text);
        return null;
      end $$`,
      `create trigger clients_changed after insert or update or delete on clients
        for each row execute function coregate_notify_change('client', 'id')`,
      `create trigger institutions_changed after insert or update or delete on institutions
        for each row execute function coregate_notify_change('institution', 'id')`,
      `create trigger signing_keys_changed after insert or update or delete on signing_keys
        for each row execute function coregate_notify_change('signing_key', 'kid')`,
    ],
  },
  {
    version: 9,
    name: 'association removal notifications',
    statements: [
      // A customer deregistered or revoked (`DELETE /core/sessions`, `sessions revoke`, by any
      // process) is announced like a client change, so that no process serves its accounts from
      // an association it cached (COREGATE_ASSOCIATION_CACHE_SECONDS) after the delete committed.
      // Only deletes: an association never moves to another core customer (a re-registration
      // for another customer key is refused), and a renewal elsewhere leaves the cached session
      // working or rejected by the core, which renews through the database.
      `create function coregate_notify_association_removed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('coregate_changes', json_build_object(
          'kind', 'association',
          'institution', old.institution,
          'platform', old.platform,
          'customerId', old.customer_id
        )::text);
        return null;
      end $$`,
      `create trigger associations_removed after delete on associations
        for each row execute function coregate_notify_association_removed()`,
    ],
  },
  {
    version: 10,
    name: 'revoked access tokens',
    statements: [
      // RFC 7009 for access tokens: the jti of each revoked token, kept until the token expires
      // (then pruned). Every process holds the live ones in memory and hears of new ones at
      // once through the change feed, so the gateway refuses a revoked token with no read.
      `create table revoked_access_tokens (
        jti text primary key,
        client_id text not null,
        expires_at timestamptz not null,
        revoked_at timestamptz not null
      )`,
      `create index revoked_access_tokens_expiry on revoked_access_tokens (expires_at)`,
      `create function coregate_notify_access_token_revoked() returns trigger language plpgsql as $$
      begin
        perform pg_notify('coregate_changes', json_build_object(
          'kind', 'access_token_revoked',
          'jti', new.jti,
          'exp', floor(extract(epoch from new.expires_at))::bigint
        )::text);
        return null;
      end $$`,
      `create trigger access_tokens_revoked after insert on revoked_access_tokens
        for each row execute function coregate_notify_access_token_revoked()`,
    ],
  },
  {
    version: 11,
    name: 'client authentication methods and bound tokens',
    statements: [
      // One authentication method per client (RFC 8414 token_endpoint_auth_method). A client
      // that proves itself with a key or a certificate has no secret: its digest is null.
      `alter table clients add column token_endpoint_auth_method text not null default 'client_secret_basic'`,
      // Public keys only (private_key_jwt), or the self-signed certificate in x5c (RFC 8705 §2.2).
      `alter table clients add column jwks jsonb`,
      `alter table clients add column tls_subject_dn text`,
      `alter table clients add column require_bound_tokens boolean not null default false`,
      `alter table clients alter column secret_digest drop not null`,
    ],
  },
  {
    version: 12,
    name: 'single-use proof identifiers',
    statements: [
      // The jti of each client assertion (RFC 7523 §3) and DPoP proof (RFC 9449 §11.1) seen,
      // until it could no longer be accepted anyway: the primary key makes the second use of
      // one fail in every process at once. Used when no Redis is configured (or it fails).
      `create table used_proof_ids (
        key text primary key,
        expires_at timestamptz not null
      )`,
      `create index used_proof_ids_expiry on used_proof_ids (expires_at)`,
    ],
  },
  {
    version: 13,
    name: 'webhook retention indexes',
    statements: [
      // The background pruning of settled deliveries and events older than
      // COREGATE_WEBHOOK_RETENTION_DAYS reads them oldest first, a batch at a time.
      `create index webhook_deliveries_settled on webhook_deliveries (created_at) where status <> 'pending'`,
      `create index webhook_events_created on webhook_events (created_at)`,
      // Whether an event still has deliveries (and the cascade when one is deleted) without a scan.
      `create index webhook_deliveries_event on webhook_deliveries (event_id)`,
    ],
  },
  {
    version: 14,
    name: 'association lookups by primary key only',
    statements: [
      // No statement reads associations by customer key, and the index misled the planner:
      // on a table never analysed (autovacuum off, PGlite, or the first minute of a bulk
      // onboarding) the lookup by (institution, platform, customer_id) scanned every row of
      // the platform through this index instead of reading one through the primary key,
      // which capped registration's rate as the table grew (docs/benchmarks.md). One index fewer is also one write fewer per registration.
      `drop index if exists associations_customer_key`,
    ],
  },
  {
    version: 15,
    name: 'core kinds: institutions whose core is Apache Fineract',
    statements: [
      // Every existing institution speaks the reference core protocol (the column default).
      `alter table institutions add column core_kind text not null default 'coregate' check (core_kind in ('coregate', 'fineract'))`,
      // Fineract's settings; unset columns read as the documented defaults (docs/cores/fineract.md).
      `alter table institutions add column fineract_tenant text`,
      `alter table institutions add column fineract_ssn_document_type text`,
      `alter table institutions add column fineract_customer_key text check (fineract_customer_key in ('id', 'external-id'))`,
      `alter table institutions add column fineract_session_ttl_seconds integer`,
      // The core's service user (`username:password`), sealed like the core API key.
      `alter table institutions add column core_credentials_sealed text`,
      `alter table institutions add column core_credentials_key_id text`,
    ],
  },
  {
    version: 16,
    name: 'single-use proof identifiers not written to the WAL',
    statements: [
      // A proof identifier need only outlive its proof (seconds to minutes) and be seen by every
      // process, not survive a crash of the database: an unlogged table is shared like any other
      // but its inserts are not flushed to disk before they commit, which every read of a
      // DPoP-bound client otherwise waits for. After a database crash the table starts empty
      // (docs/operations.md, "Threat model").
      `alter table used_proof_ids set unlogged`,
    ],
  },
  {
    version: 17,
    name: 'how a Fineract institution finds a client by SSN',
    statements: [
      // Unset reads as the default, `client-search` (docs/cores/fineract.md#releases).
      `alter table institutions add column fineract_ssn_lookup text check (fineract_ssn_lookup in ('client-search', 'identifier-search', 'off'))`,
    ],
  },
  {
    version: 18,
    name: 'transaction sync state: ids and keyed digests only',
    statements: [
      // What a platform was last told by `GET /core/transactions/sync` for one account: a
      // generation that its cursor names, and per transaction the id and a keyed digest of the
      // record, never an amount or a description (docs/behaviour.md#transaction-sync). The
      // foreign key deletes it with the association (deregistration, `sessions revoke`).
      `create table transaction_sync_states (
        institution text not null,
        platform text not null,
        customer_id text not null,
        account_id text not null,
        generation bigint not null,
        window_digest text,
        updated_at timestamptz not null,
        primary key (institution, platform, customer_id, account_id),
        foreign key (institution, platform, customer_id)
          references associations (institution, platform, customer_id) on delete cascade
      )`,
      `create table transaction_sync_items (
        institution text not null,
        platform text not null,
        customer_id text not null,
        account_id text not null,
        transaction_id text not null,
        digest text not null,
        leaves_window_on date,
        primary key (institution, platform, customer_id, account_id, transaction_id),
        foreign key (institution, platform, customer_id, account_id)
          references transaction_sync_states (institution, platform, customer_id, account_id) on delete cascade
      )`,
    ],
  },
  {
    version: 19,
    name: 'operator console: sign-in links and sessions, operators named in the audit log',
    statements: [
      // Found by the SHA-256 digest of their token: a copy of the table signs nobody in.
      `create table console_links (
        digest text primary key,
        operator text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        used_at timestamptz
      )`,
      `create table console_sessions (
        digest text primary key,
        operator text not null,
        created_at timestamptz not null,
        last_seen_at timestamptz not null
      )`,
      // The console's writes name their operator (`operator:alice`); the CLI's stay `operator`.
      `alter table audit_log drop constraint audit_log_actor_check`,
      `alter table audit_log add constraint audit_log_actor_check check (actor in ('client', 'operator') or actor ~ '^operator:[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$')`,
    ],
  },
  {
    version: 20,
    name: 'the encryption key wrapped by an HSM key',
    statements: [
      // With COREGATE_KEY_STORE=pkcs11 the encryption key exists only wrapped (encrypted) by an
      // AES key on the token, named by its label; each process unwraps it into memory at start
      // (docs/operations.md#keys-in-an-hsm). One row per wrapping key; the first one written wins.
      `create table wrapped_encryption_keys (
        wrapping_key_label text primary key,
        wrapped text not null,
        created_at timestamptz not null
      )`,
    ],
  },
];
