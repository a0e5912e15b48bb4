/**
 * `coregate clients update ID …` and `coregate clients delete ID` (issue 14), through the admin
 * operations `clients.update` and `clients.delete`. Both are audited by the operation itself.
 */
import type { Command } from 'commander';
import type { ClientView } from '../server/admin-operations.js';
import { examples, repeatable, withJson, type AdminContext } from './program.js';
import { addClientSecurityOptions, clientSecurityArgs, type ClientSecurityOptions } from './client-security-options.js';

/** Prints one client as text or, with --json, as one JSON document. */
export type PrintClient = (client: ClientView, json: boolean) => void;

interface UpdateOptions extends ClientSecurityOptions {
  name?: string;
  scope?: string[];
  grant?: string[];
  allowIp?: string[];
  clearAllowIps?: boolean;
  json?: boolean;
}

/** Adds `update` and `delete` to the `clients` command. */
export function addClientEditCommands(clients: Command, context: AdminContext, print: PrintClient): void {
  const { io } = context;
  withJson(
    addClientSecurityOptions(clients
      .command('update')
      .summary('change a client in place (same ID and secret)')
      .description('Changes a client in place: same ID, same secret. --scope, --grant and --allow-ip replace the whole list. Running servers apply the change at once (within 60 seconds at most).')
      .usage('ID [--name NAME] [--scope S]... [--grant G]... [--allow-ip CIDR]... [--clear-allow-ips] [--auth-method M] [--jwks-file FILE] [--tls-subject-dn DN] [--[no-]require-bound-tokens] [--json]')
      .argument('<ID>', 'the client ID (cg_…)')
      .option('--name <NAME>', 'a new name')
      .option('--scope <S>', 'its scopes from now on; repeatable', repeatable)
      .option('--grant <G>', 'its grants from now on; repeatable', repeatable)
      .option('--allow-ip <CIDR>', 'its address ranges from now on; repeatable', repeatable)
      .option('--clear-allow-ips', 'let it call from any address'), true),
  )
    .addHelpText(
      'after',
      examples(
        'coregate clients update cg_4fJq0nXbZl2mYtR8pW1s --allow-ip 203.0.113.0/24 --allow-ip 198.51.100.7/32',
        'coregate clients update cg_4fJq0nXbZl2mYtR8pW1s --name "Acme web (EU)" --clear-allow-ips',
        'coregate clients update cg_4fJq0nXbZl2mYtR8pW1s --jwks-file acme-public-2027.jwks.json',
      ),
    )
    .action(async (id: string, options: UpdateOptions) => {
      const client = await (await context.admin()).call('clients.update', {
        id,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.scope !== undefined ? { scopes: options.scope } : {}),
        ...(options.grant !== undefined ? { grants: options.grant } : {}),
        ...(options.allowIp !== undefined ? { allowedIps: options.allowIp } : {}),
        ...(options.clearAllowIps === true ? { clearAllowedIps: true } : {}),
        ...clientSecurityArgs(options),
      });
      print(client, options.json === true);
      io.err('gateways apply the change within their client cache time (60 seconds by default)');
    });

  withJson(
    clients
      .command('delete')
      .summary('delete a client and its refresh tokens')
      .description('Deletes a client and its refresh tokens; its access tokens stop working at once in every running server (within 60 seconds at most).')
      .usage('ID [--json]')
      .argument('<ID>', 'the client ID (cg_…)'),
  )
    .addHelpText('after', examples('coregate clients delete cg_4fJq0nXbZl2mYtR8pW1s'))
    .action(async (id: string, options: { json?: boolean }) => {
      const result = await (await context.admin()).call('clients.delete', { id });
      io.out(options.json ? JSON.stringify(result) : `deleted client ${result.client_id}`);
      io.err('its refresh tokens are gone; its access tokens stop working within the client cache time (60 seconds by default)');
    });
}
