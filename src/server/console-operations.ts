/**
 * `coregate console link` (docs/operations.md#console): the admin operation that makes a
 * single-use sign-in link for a named operator. The link's URL is the running console's; a
 * command that opened the database itself makes it from COREGATE_CONSOLE_HOST and _PORT.
 */
import { invalidRequest } from '../domain/errors.js';
import type { Config } from '../config/config.js';
import type { Services } from './services.js';

export interface ConsoleOperations {
  'console.link': {
    args: { operator: string; ttlSeconds?: number };
    result: { url: string; operator: string; expiresAt: string };
  };
}

type Handlers = {
  [N in keyof ConsoleOperations]: (args: ConsoleOperations[N]['args']) => Promise<ConsoleOperations[N]['result']>;
};

/** Where the console's sign-in page is, relative to its base URL. */
const SIGN_IN_PATH = '/console/sign-in';

/** The console's base URL from the configuration (`https` with a TLS certificate), or why there is none. */
function configuredConsoleUrl(config: Config): string {
  const port = config.consolePort;
  if (port === undefined) throw invalidRequest('the console is off: set COREGATE_CONSOLE_PORT and restart the server');
  if (port === 0)
    throw invalidRequest('with COREGATE_CONSOLE_PORT=0 only the running server knows its port: start it first');
  const host = config.consoleHost.includes(':') ? `[${config.consoleHost}]` : config.consoleHost;
  const reachable = host === '0.0.0.0' || host === '[::]' ? 'localhost' : host;
  return `${config.tlsCertFile === undefined ? 'http' : 'https'}://${reachable}:${port}`;
}

export function consoleOperations(
  services: Pick<Services, 'consoleSignIn' | 'config'>,
  consoleUrl: (() => string | undefined) | undefined,
): Handlers {
  return {
    'console.link': async ({ operator, ttlSeconds }) => {
      // Checked before a link is stored: a console that is off gets no links.
      const base = consoleUrl?.() ?? configuredConsoleUrl(services.config);
      const link = await services.consoleSignIn.issueLink(operator, ttlSeconds);
      return {
        url: `${base}${SIGN_IN_PATH}?token=${link.token}`,
        operator: link.operator,
        expiresAt: link.expiresAt.toISOString(),
      };
    },
  };
}
