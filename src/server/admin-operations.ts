/**
 * The operator's operations on a running installation, as named operations with
 * JSON arguments and JSON results: the table the admin socket serves
 * (`admin-socket.ts`) and the CLI calls directly when it opened the database
 * itself. Each one is a use-case call; formatting is the CLI's.
 */
import type { Client } from '../domain/client.js';
import { fromDatabaseFailure } from '../app/database-failures.js';
import { ApiError } from '../domain/errors.js';
import { DatabaseUnavailable } from '../ports/database-unavailable.js';
import { DEFAULT_INSTITUTION } from '../domain/institution.js';
import type { PublicJwks } from '../ports/token-signer.js';
import { migrate, type MigrationReport } from '../adapters/store/migrate.js';
import type { Services } from './services.js';
import { coreCheckOperations, type CoreCheckOperations } from './core-check.js';
import { institutionOperations, type InstitutionOperations } from './institution-operations.js';
import { webhookOperations, type WebhookOperations } from './webhook-operations.js';
import { operatorAudit, operatorOperations, type OperatorOperations } from './operator-operations.js';
import { consoleOperations, type ConsoleOperations } from './console-operations.js';
import type { AuditActor } from '../ports/audit-log.js';

/** A client as the operator sees it: never its secret digest. */
export interface ClientView {
  readonly id: string;
  readonly name: string;
  readonly platform: string;
  /** The institution the client acts for (docs/behaviour.md#institution-isolation). */
  readonly institution: string;
  readonly scopes: readonly string[];
  readonly grants: readonly string[];
  readonly allowedIps: readonly string[];
  readonly enabled: boolean;
  readonly createdAt: string;
  readonly secretRotatedAt: string;
  readonly authMethod: string;
  readonly requireBoundTokens: boolean;
  readonly tlsSubjectDn: string | null;
  /** The `kid`s of its registered keys (never the keys themselves); `null` without a JWKS. */
  readonly jwksKids: readonly string[] | null;
}

interface AuditEventView {
  readonly id: string;
  readonly occurredAt: string;
  readonly type: string;
  readonly outcome: string;
  readonly reason: string | null;
  readonly actor: string;
  readonly clientId: string | null;
  readonly platform: string | null;
  readonly institution: string | null;
  readonly customerId: string | null;
  readonly requestId: string | null;
  /** Aggregated rows only (refusals before authentication): how many, and from which address. */
  readonly count?: number;
  readonly sourceIp?: string | null;
}

/** A stored association: an allow-list of fields, never a delegate reference ID. */
export interface AssociationView {
  readonly institution: string;
  readonly customerId: string;
  readonly customerKey: string;
  readonly expiresAt: string;
  readonly needsReregistration: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * Each operation's arguments and result. Operations are named after the command that calls
 * them, in the code's words: `coregate sessions …` lists and revokes associations.
 */
export interface AdminOperations
  extends
    InstitutionOperations,
    CoreCheckOperations,
    WebhookOperations,
    OperatorOperations<ClientView>,
    ConsoleOperations {
  ping: { args: Record<string, never>; result: { ok: true } };
  'clients.create': {
    args: {
      name: string;
      platform?: string;
      scopes?: string[];
      grants?: string[];
      allowedIps?: string[];
      institution?: string;
      authMethod?: string;
      jwks?: unknown;
      tlsSubjectDn?: string;
      requireBoundTokens?: boolean;
    };
    /** No secret for a client that authenticates with a key or a certificate. */
    result: { client: ClientView; secret?: string };
  };
  'clients.list': { args: { platform?: string }; result: ClientView[] };
  'clients.show': { args: { id: string }; result: ClientView };
  'clients.set-enabled': { args: { id: string; enabled: boolean }; result: ClientView };
  'clients.rotate-secret': {
    args: { id: string; graceSeconds?: number };
    result: { client: ClientView; secret: string; previousSecretUntil?: string | null };
  };
  'keys.rotate': { args: Record<string, never>; result: { kid: string; previousKeysPublishedUntil: string } };
  /** The JWKS, and which of its keys signs new tokens. */
  'keys.list': {
    args: Record<string, never>;
    result: PublicJwks & {
      activeKid: string;
      /** Each key's dates (ISO): made, stopped signing (`null` while active), leaves the JWKS. */
      dates: { kid: string; createdAt: string; retiredAt: string | null; publishUntil: string | null }[];
    };
  };
  migrate: { args: Record<string, never>; result: MigrationReport };
  'audit.list': {
    args: {
      platform?: string;
      customerId?: string;
      since?: string;
      until?: string;
      type?: string;
      limit?: number;
      actor?: string;
      before?: string;
    };
    result: AuditEventView[];
  };
  'associations.list': {
    args: { platform: string; limit?: number; institution?: string };
    result: { associations: AssociationView[]; truncated: boolean };
  };
  /** One customer: its association and the last failure the audit log holds for it (a core error's code). */
  'associations.show': {
    args: { platform: string; customerId: string; institution?: string };
    result: AssociationView & {
      lastFailure: { occurredAt: string; type: string; reason: string | null } | null;
    };
  };
  'associations.revoke': {
    args: { platform: string; customerId: string; institution?: string };
    result: { platform: string; customerId: string; institution: string; revoked: true };
  };
}

export type AdminOperationName = keyof AdminOperations;

/** Runs operations, in this process or in the server that holds the database. */
export interface AdminClient {
  call<N extends AdminOperationName>(name: N, args: AdminOperations[N]['args']): Promise<AdminOperations[N]['result']>;
  close(): Promise<void>;
}

/** An operation refused by a use case: its public message and the fields at fault. */
export class AdminOperationFailed extends Error {
  constructor(
    message: string,
    readonly problems: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(message);
  }
}

/** The handler table: one function per operation. */
export type AdminHandlers = {
  [N in AdminOperationName]: (args: AdminOperations[N]['args']) => Promise<AdminOperations[N]['result']>;
};

export interface AdminOperationsOptions {
  /**
   * Migrations applied when the caller opened the database itself (every opening
   * migrates): `migrate` reports them as its own work. Unset in a server, whose
   * start-up migrations are its own.
   */
  readonly migratedOnOpen?: MigrationReport;
  /** The running server serves these operations (on its admin socket), rather than a command on its own services. */
  readonly server?: boolean;
  /** Who the audit log names for the writes: `operator` (the CLI, by default) or `operator:NAME` (the console). */
  readonly actor?: AuditActor;
  /** The running console's base URL, for `console.link`; unset: made from the configuration. */
  readonly consoleUrl?: () => string | undefined;
}

function clientView(client: Client): ClientView {
  return {
    id: client.id,
    name: client.name,
    platform: client.platform,
    institution: client.institution,
    scopes: client.scopes,
    grants: client.grants,
    allowedIps: client.allowedIps,
    enabled: client.enabled,
    createdAt: client.createdAt.toISOString(),
    secretRotatedAt: client.secretRotatedAt.toISOString(),
    authMethod: client.authMethod,
    requireBoundTokens: client.requireBoundTokens,
    tlsSubjectDn: client.tlsSubjectDn,
    jwksKids: client.jwks
      ? client.jwks.keys.map((key) => (typeof key['kid'] === 'string' ? key['kid'] : '(no kid)'))
      : null,
  };
}

export type AdminServices = Pick<
  Services,
  | 'clientRegistry'
  | 'keyring'
  | 'database'
  | 'auditReader'
  | 'associationAdmin'
  | 'institutionAdmin'
  | 'coreChecker'
  | 'webhookAdmin'
  | 'audit'
  | 'config'
  | 'consoleSignIn'
>;

/** The existing operator operations, each followed by its audit row once it succeeded (docs/behaviour.md#audit-log). */
function audited(services: AdminServices, handlers: AdminHandlers, actor?: AuditActor): AdminHandlers {
  const audit = operatorAudit(services, actor);
  return {
    ...handlers,
    'clients.create': async (args) => {
      const result = await handlers['clients.create'](args);
      await audit('client.created', {
        clientId: result.client.id,
        platform: result.client.platform,
        institution: result.client.institution,
      });
      return result;
    },
    'clients.set-enabled': async (args) => {
      const client = await handlers['clients.set-enabled'](args);
      await audit(args.enabled ? 'client.enabled' : 'client.disabled', {
        clientId: client.id,
        platform: client.platform,
        institution: client.institution,
      });
      return client;
    },
    'clients.rotate-secret': async (args) => {
      const result = await handlers['clients.rotate-secret'](args);
      await audit('client.secret_rotated', {
        clientId: result.client.id,
        platform: result.client.platform,
        institution: result.client.institution,
        ...(args.graceSeconds ? { reason: `grace_${args.graceSeconds}s` } : {}),
      });
      return result;
    },
    'keys.rotate': async (args) => {
      const result = await handlers['keys.rotate'](args);
      await audit('key.rotated', { reason: result.kid });
      return result;
    },
    'institutions.add': async (args) => {
      const result = await handlers['institutions.add'](args);
      await audit('institution.added', { institution: result.id });
      return result;
    },
    'institutions.update': async (args) => {
      const result = await handlers['institutions.update'](args);
      await audit('institution.updated', { institution: result.id });
      return result;
    },
    'institutions.set-enabled': async (args) => {
      const result = await handlers['institutions.set-enabled'](args);
      await audit(args.enabled ? 'institution.enabled' : 'institution.disabled', { institution: result.id });
      return result;
    },
    'webhooks.add': async (args) => {
      const result = await handlers['webhooks.add'](args);
      await audit('webhook.added', { platform: result.platform, reason: result.id });
      return result;
    },
    'webhooks.remove': async (args) => {
      const result = await handlers['webhooks.remove'](args);
      await audit('webhook.removed', { reason: result.id });
      return result;
    },
    'webhooks.enable': async (args) => {
      const result = await handlers['webhooks.enable'](args);
      await audit('webhook.enabled', { platform: result.platform, reason: result.id });
      return result;
    },
    'webhooks.disable': async (args) => {
      const result = await handlers['webhooks.disable'](args);
      await audit('webhook.disabled', { platform: result.platform, reason: result.id });
      return result;
    },
    'webhooks.retry': async (args) => {
      const result = await handlers['webhooks.retry'](args);
      await audit('webhook.delivery_retried', { reason: result.id });
      return result;
    },
    'webhooks.rotate-secret': async (args) => {
      const result = await handlers['webhooks.rotate-secret'](args);
      await audit('webhook.secret_rotated', { reason: result.id });
      return result;
    },
  };
}

/** The handler table: one use-case call per operation. */
export function adminOperations(services: AdminServices, options: AdminOperationsOptions = {}): AdminHandlers {
  return audited(
    services,
    {
      ...operatorOperations(services, clientView, options.actor),
      ...consoleOperations(services, options.consoleUrl),
      ...webhookOperations(services.webhookAdmin, {
        production: services.config.production,
        allowPrivate: services.config.webhookAllowPrivate,
        server: options.server ?? false,
      }),
      ping: () => Promise.resolve({ ok: true }),
      ...institutionOperations(services),
      ...coreCheckOperations(services),
      'clients.create': async (args) => {
        const { client, secret } = await services.clientRegistry.create(args);
        return { client: clientView(client), ...(secret !== undefined ? { secret } : {}) };
      },
      'clients.list': async ({ platform }) => (await services.clientRegistry.list(platform)).map(clientView),
      'clients.show': async ({ id }) => clientView(await services.clientRegistry.show(id)),
      'clients.set-enabled': async ({ id, enabled }) =>
        clientView(await services.clientRegistry.setEnabled(id, enabled)),
      'clients.rotate-secret': async ({ id, graceSeconds }) => {
        const { client, secret, previousSecretUntil } = await services.clientRegistry.rotateSecret(
          id,
          graceSeconds ?? 0,
        );
        return { client: clientView(client), secret, previousSecretUntil: previousSecretUntil?.toISOString() ?? null };
      },
      'keys.rotate': async () => {
        const rotated = await services.keyring.rotate();
        return { kid: rotated.kid, previousKeysPublishedUntil: rotated.previousKeysPublishedUntil.toISOString() };
      },
      'keys.list': async () => ({
        ...(await services.keyring.jwks()),
        activeKid: await services.keyring.activeKid(),
        dates: (await services.keyring.keyDates()).map((key) => ({
          kid: key.kid,
          createdAt: key.createdAt.toISOString(),
          retiredAt: key.retiredAt?.toISOString() ?? null,
          publishUntil: key.publishUntil?.toISOString() ?? null,
        })),
      }),
      migrate: async () => {
        const pending = await migrate(services.database);
        return { applied: [...(options.migratedOnOpen?.applied ?? []), ...pending.applied], current: pending.current };
      },
      'audit.list': async (args) => {
        const records = await services.auditReader.list(args);
        return records.map((record) => ({
          id: record.id,
          occurredAt: record.occurredAt.toISOString(),
          type: record.type,
          outcome: record.outcome,
          reason: record.reason,
          actor: record.actor,
          clientId: record.clientId,
          platform: record.platform,
          institution: record.institution ?? null,
          customerId: record.customerId,
          requestId: record.requestId,
          ...(record.count == null ? {} : { count: record.count, sourceIp: record.sourceIp ?? null }),
        }));
      },
      'associations.list': async ({ platform, limit, institution }) => {
        const listing = await services.associationAdmin.list(platform, limit, institution);
        const associations = listing.associations.map((association) => ({
          institution: association.institution,
          customerId: association.customerId,
          customerKey: association.customerKey,
          expiresAt: association.expiresAt.toISOString(),
          needsReregistration: association.needsReregistration,
          createdAt: association.createdAt.toISOString(),
          updatedAt: association.updatedAt.toISOString(),
        }));
        return { associations, truncated: listing.truncated };
      },
      'associations.show': async ({ platform, customerId, institution = DEFAULT_INSTITUTION }) => {
        const association = await services.associationAdmin.show(platform, customerId, institution);
        const events = await services.auditReader.list({ platform, customerId, limit: 100 });
        const failure = events.find(
          (event) => event.outcome === 'failure' && (event.institution ?? DEFAULT_INSTITUTION) === institution,
        );
        return {
          institution: association.institution,
          customerId: association.customerId,
          customerKey: association.customerKey,
          expiresAt: association.expiresAt.toISOString(),
          needsReregistration: association.needsReregistration,
          createdAt: association.createdAt.toISOString(),
          updatedAt: association.updatedAt.toISOString(),
          lastFailure: failure
            ? { occurredAt: failure.occurredAt.toISOString(), type: failure.type, reason: failure.reason }
            : null,
        };
      },
      'associations.revoke': async ({ platform, customerId, institution = DEFAULT_INSTITUTION }) => {
        await services.associationAdmin.revoke(platform, customerId, institution);
        return { platform, customerId, institution, revoked: true };
      },
    },
    options.actor,
  );
}

export function isAdminOperation(handlers: AdminHandlers, name: unknown): name is AdminOperationName {
  return typeof name === 'string' && Object.hasOwn(handlers, name);
}

/** Runs one operation; a use case's refusal becomes {@link AdminOperationFailed}. */
export async function executeAdminOperation<N extends AdminOperationName>(
  handlers: AdminHandlers,
  name: N,
  args: AdminOperations[N]['args'],
): Promise<AdminOperations[N]['result']> {
  try {
    return await (handlers[name] as (args: AdminOperations[N]['args']) => Promise<AdminOperations[N]['result']>)(args);
  } catch (caught) {
    const error = caught instanceof DatabaseUnavailable ? fromDatabaseFailure(caught) : caught;
    if (error instanceof ApiError) {
      const problems = (error.data['errors'] as { path: string; message: string }[] | undefined) ?? [];
      throw new AdminOperationFailed(error.message, problems);
    }
    throw error;
  }
}

/** Operations on services this process opened; closing the client closes them. */
export function directAdminClient(services: Services, options: AdminOperationsOptions = {}): AdminClient {
  const handlers = adminOperations(services, options);
  return {
    call: (name, args) => executeAdminOperation(handlers, name, args),
    close: () => services.close(),
  };
}
