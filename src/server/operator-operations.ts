/**
 * The operator operations `clients.update`, `clients.delete` and `keys.revoke`, and the
 * audit row every operator action writes (actor `operator`, the command as the event type, the
 * client as target; for keys the kid in `reason`; never a secret). Registered in the handler
 * table of `admin-operations.ts`, so the CLI and the admin socket reach them alike.
 */
import type { Client } from '../domain/client.js';
import { notFound } from '../domain/errors.js';
import type { AuditActor, AuditEventType } from '../ports/audit-log.js';
import type { Services } from './services.js';

/** `V` is the client view of `admin-operations.ts` (generic here so that the two files import each other in one direction only). */
export interface OperatorOperations<V> {
  'clients.update': {
    args: {
      id: string;
      name?: string;
      scopes?: string[];
      grants?: string[];
      allowedIps?: string[];
      clearAllowedIps?: boolean;
      authMethod?: string;
      jwks?: unknown;
      tlsSubjectDn?: string;
      requireBoundTokens?: boolean;
    };
    result: V;
  };
  'clients.delete': { args: { id: string }; result: { client_id: string; deleted: true } };
  'keys.revoke': { args: { kid: string }; result: { kid: string; revoked: true; rotatedTo: string | null } };
}

export type OperatorServices = Pick<Services, 'clientRegistry' | 'keyring' | 'audit'>;

/** Writes one operator action's audit row. */
export type OperatorAudit = (
  type: AuditEventType,
  target: { clientId?: string; platform?: string; institution?: string; reason?: string },
) => Promise<void>;

/** `actor`: `operator` for the CLI, `operator:NAME` for an operator signed in to the console. */
export function operatorAudit(services: Pick<Services, 'audit'>, actor: AuditActor = 'operator'): OperatorAudit {
  return (type, target) =>
    services.audit.record({
      type,
      outcome: 'success',
      reason: target.reason ?? null,
      actor,
      clientId: target.clientId ?? null,
      platform: target.platform ?? null,
      ...(target.institution ? { institution: target.institution } : {}),
      customerId: null,
      requestId: null,
    });
}

type Handlers<V> = {
  [N in keyof OperatorOperations<V>]: (
    args: OperatorOperations<V>[N]['args'],
  ) => Promise<OperatorOperations<V>[N]['result']>;
};

/** The new operations, each audited once it succeeded. */
export function operatorOperations<V>(
  services: OperatorServices,
  view: (client: Client) => V,
  actor?: AuditActor,
): Handlers<V> {
  const audit = operatorAudit(services, actor);
  return {
    'clients.update': async ({ id, ...changes }) => {
      const client = await services.clientRegistry.update(id, changes);
      await audit('client.updated', {
        clientId: client.id,
        platform: client.platform,
        institution: client.institution,
      });
      return view(client);
    },
    'clients.delete': async ({ id }) => {
      const client = await services.clientRegistry.delete(id);
      await audit('client.deleted', {
        clientId: client.id,
        platform: client.platform,
        institution: client.institution,
      });
      return { client_id: client.id, deleted: true };
    },
    'keys.revoke': async ({ kid }) => {
      const revoked = await services.keyring.revoke(kid);
      if (!revoked) throw notFound(`no published signing key "${kid}" (see coregate keys list)`);
      await audit('key.revoked', { reason: kid });
      if (revoked.rotatedTo) await audit('key.rotated', { reason: revoked.rotatedTo });
      return { kid, revoked: true, rotatedTo: revoked.rotatedTo ?? null };
    },
  };
}
