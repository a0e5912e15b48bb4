/**
 * The first start on a fresh embedded installation: create a demo client once and
 * print a copy-paste walk-through (token → register a demo customer → accounts).
 * Production installations (PostgreSQL, or NODE_ENV=production) never get a demo client:
 * `server/main.ts` calls this only for the embedded database outside production mode.
 */
import type { Services } from './services.js';

/** A named demo customer of the built-in simulator (docs/core-protocol.md#7-the-core-simulator). */
const DEMO_REGISTRATION = {
  demographics: { socialSecurityNumber: '123-45-6789', accountNumber: '70001234', birthDay: '1980-04-12' },
  registration: { customerId: 'demo-customer-1' },
};

/** Where the walk-through sends its requests, and which core answers them. */
export interface FirstRunSetting {
  /** The server's URL as clients reach it: the configured issuer, else the listening URL. */
  readonly url: string;
  /** The default institution's core is the built-in simulator, which knows the demo customer. */
  readonly simulatorCore: boolean;
}

/** The simulator knows the demo customer by demographics; a core of the bank's own is asked for one of its customers by key. */
const OWN_CORE_REGISTRATION = {
  customer: { customerKey: 'YOUR-CUSTOMER-KEY' },
  registration: DEMO_REGISTRATION.registration,
};

/** Step 2: `comment` (lines without their `#`), then the registration of `body`. */
function registrationStep(url: string, comment: readonly string[], body: unknown): string {
  const lines = comment.map((line, index) => `  #${index === 0 ? ' 2.' : '   '} ${line}`).join('\n');
  return `${lines}
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
    -d '${JSON.stringify(body)}' ${url}/core/sessions`;
}

function walkthrough({ url, simulatorCore }: FirstRunSetting, clientId: string, clientSecret: string): string {
  const registration = simulatorCore
    ? registrationStep(url, ['register a demo customer with the core'], DEMO_REGISTRATION)
    : registrationStep(
        url,
        [
          "register one of your core's customers by its key (the demo customer lives only in the",
          'built-in simulator); bin/coregate core check --institution default --customer-key KEY',
          'checks the core first',
        ],
        OWN_CORE_REGISTRATION,
      );
  return `
A demo client was created on this first run. Its secret is shown only now:

  client_id:     ${clientId}
  client_secret: ${clientSecret}

Try coregate${simulatorCore ? ' with the built-in core simulator' : ''}:

  # 1. get an access token
  TOKEN=$(curl -s -u '${clientId}:${clientSecret}' -d grant_type=client_credentials -d scope=core/main \\
    ${url}/oauth2/token | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).access_token')

${registration}

  # 3. list the customer's accounts
  curl -s -H "Authorization: Bearer $TOKEN" '${url}/core/accounts?customerId=demo-customer-1'
`;
}

/** The demo client's name, by which a later start finds it again. */
const DEMO_CLIENT_NAME = 'Demo platform';

/** A later start's reminder: the secret was shown once, so say how to get a new one. */
function demoClientReminder(clientId: string): string {
  return `
The demo client ${clientId} (platform "demo") was created on the first run; its secret was shown only then.
Get a new secret with: bin/coregate clients rotate-secret ${clientId}
`;
}

/**
 * Creates the demo client when the database has no client at all, and prints the walk-through to
 * stdout; on later starts names the demo client (if it is still there) and how to get a new secret.
 */
export async function welcomeFirstRun(
  services: Pick<Services, 'clientRegistry'>,
  setting: FirstRunSetting,
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<boolean> {
  const existing = await services.clientRegistry.list();
  if (existing.length > 0) {
    const demo = existing.find(
      (client) => client.name === DEMO_CLIENT_NAME && client.platform === 'demo' && client.enabled,
    );
    if (demo) out(demoClientReminder(demo.id));
    return false;
  }
  const { client, secret } = await services.clientRegistry.create({
    name: DEMO_CLIENT_NAME,
    platform: 'demo',
    grants: ['refresh_token'],
  });
  out(walkthrough(setting, client.id, secret));
  return true;
}
