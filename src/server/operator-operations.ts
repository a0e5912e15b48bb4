/**
 * Issue 14's operator operations — `clients.update`, `clients.delete`, `keys.revoke` — and the
 * audit row every operator action writes (actor `operator`, the command as the event type, the
 * client as target; for keys the kid in `reason`; never a secret). Registered in the handler
 * table of `admin-operations.ts`, so the CLI and the admin socket reach them alike.
 */
import type { Client } from '../domain/client.js';
import { NotFound } from '../domain/errors.js';
import type { AuditEventType } from '../ports/audit-log.js';
import type { AdminHandlers, AdminServices, ClientView } from './admin-operations.js';

export interface OperatorOperations {
  'clients.update': {
    args: { id: string; name?: string; scopes?: string[]; grants?: string[]; allowedIps?: string[]; clearAllowedIps?: boolean };
    result: ClientView;
  };
  'clients.delete': { args: { id: string }; result: { client_id: string; deleted: true } };
  'keys.revoke': { args: { kid: string }; result: { kid: string; revoked: true; rotatedTo: string | null } };
}

type Audit = (type: AuditEventType, target: { clientId?: string; platform?: string; reason?: string }) => Promise<void>;

function auditor(services: AdminServices): Audit {
  return (type, target) =>
    services.audit.record({
      type,
      outcome: 'success',
      reason: target.reason ?? null,
      actor: 'operator',
      clientId: target.clientId ?? null,
      platform: target.platform ?? null,
      customerId: null,
      requestId: null,
    });
}

/** The new operations. `view` is admin-operations' own client view (no digest). */
export function operatorOperations(
  services: AdminServices,
  view: (client: Client) => ClientView,
): Pick<AdminHandlers, keyof OperatorOperations> {
  const audit = auditor(services);
  return {
    'clients.update': async ({ id, ...changes }) => {
      const client = await services.clientRegistry.update(id, changes);
      await audit('client.updated', { clientId: client.id, platform: client.platform });
      return view(client);
    },
    'clients.delete': async ({ id }) => {
      const client = await services.clientRegistry.delete(id);
      await audit('client.deleted', { clientId: client.id, platform: client.platform });
      return { client_id: client.id, deleted: true };
    },
    'keys.revoke': async ({ kid }) => {
      const revoked = await services.keyring.revoke(kid);
      if (!revoked) throw new NotFound(`no published signing key "${kid}" (see coregate keys list)`);
      await audit('key.revoked', { reason: kid });
      if (revoked.rotatedTo) await audit('key.rotated', { reason: revoked.rotatedTo });
      return { kid, revoked: true, rotatedTo: revoked.rotatedTo ?? null };
    },
  };
}

/** The existing operator operations, each followed by its audit row once it succeeded. */
export function auditedOperations(services: AdminServices, handlers: AdminHandlers): AdminHandlers {
  const audit = auditor(services);
  return {
    ...handlers,
    'clients.create': async (args) => {
      const result = await handlers['clients.create'](args);
      await audit('client.created', { clientId: result.client.id, platform: result.client.platform });
      return result;
    },
    'clients.set-enabled': async (args) => {
      const client = await handlers['clients.set-enabled'](args);
      await audit(args.enabled ? 'client.enabled' : 'client.disabled', { clientId: client.id, platform: client.platform });
      return client;
    },
    'clients.rotate-secret': async (args) => {
      const result = await handlers['clients.rotate-secret'](args);
      await audit('client.secret_rotated', { clientId: result.client.id, platform: result.client.platform, ...(args.graceSeconds ? { reason: `grace_${args.graceSeconds}s` } : {}) });
      return result;
    },
    'keys.rotate': async (args) => {
      const result = await handlers['keys.rotate'](args);
      await audit('key.rotated', { reason: result.kid });
      return result;
    },
  };
}
