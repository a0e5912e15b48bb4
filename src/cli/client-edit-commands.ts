/**
 * `coregate clients update ID …` and `coregate clients delete ID` (issue 14), through the admin
 * operations `clients.update` and `clients.delete`. Both are audited by the operation itself.
 */
import type { AdminClient, ClientView } from '../server/admin-operations.js';
import { UsageError, type CliIo } from './io.js';
import { parse } from './parse-args.js';

export const CLIENT_EDIT_ACTIONS = new Set(['update', 'delete']);

export const CLIENT_EDIT_HELP = `  coregate clients update ID [--name NAME] [--scope S]... [--grant G]... [--allow-ip CIDR]... [--clear-allow-ips] [--json]
  coregate clients delete ID [--json]`;

export async function clientEditCommand(
  action: string,
  args: string[],
  admin: AdminClient,
  io: CliIo,
  print: (client: ClientView, json: boolean) => void,
  help: string,
): Promise<number> {
  if (action === 'update') {
    const { values, positionals } = parse(args, {
      name: { type: 'string' },
      scope: { type: 'string', multiple: true },
      grant: { type: 'string', multiple: true },
      'allow-ip': { type: 'string', multiple: true },
      'clear-allow-ips': { type: 'boolean' },
    }, 1);
    if (values.help) return (io.out(help), 0);
    const client = await admin.call('clients.update', {
      id: positionals[0]!,
      ...(typeof values.name === 'string' ? { name: values.name } : {}),
      ...(values.scope !== undefined ? { scopes: values.scope as string[] } : {}),
      ...(values.grant !== undefined ? { grants: values.grant as string[] } : {}),
      ...(values['allow-ip'] !== undefined ? { allowedIps: values['allow-ip'] as string[] } : {}),
      ...(values['clear-allow-ips'] === true ? { clearAllowedIps: true } : {}),
    });
    print(client, values.json === true);
    io.err('gateways apply the change within their client cache time (60 seconds by default)');
    return 0;
  }
  if (action === 'delete') {
    const { values, positionals } = parse(args, {}, 1);
    if (values.help) return (io.out(help), 0);
    const result = await admin.call('clients.delete', { id: positionals[0]! });
    io.out(values.json ? JSON.stringify(result) : `deleted client ${result.client_id}`);
    io.err('its refresh tokens are gone; its access tokens stop working within the client cache time (60 seconds by default)');
    return 0;
  }
  throw new UsageError(`unknown clients command "${action}"`);
}
