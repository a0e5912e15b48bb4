/**
 * The admin operations of `coregate institutions …` (docs/behaviour.md#institution-commands),
 * registered in the table of `admin-operations.ts`. A view never holds the core API key or the
 * core's service user, only `hasApiKey` and `hasCredentials`.
 */
import type { InstitutionInput, InstitutionView as Institution } from '../app/institution-admin.js';
import type { CoreKind, FineractSettings } from '../domain/institution.js';
import type { Services } from './services.js';

/** An institution as the CLI prints it (dates as ISO strings). */
export interface InstitutionView {
  readonly id: string;
  readonly name: string;
  readonly coreUrl: string | null;
  readonly enabled: boolean;
  readonly hasApiKey: boolean;
  readonly coreKind: CoreKind;
  /** A Fineract core's settings; `null` for the reference core protocol. */
  readonly fineract: FineractSettings | null;
  readonly hasCredentials: boolean;
  readonly coreTimeoutMs: number | null;
  readonly coreCaFile: string | null;
  readonly coreCertFile: string | null;
  readonly coreKeyFile: string | null;
  /** `config` for `default` (CORE_URL …), `database` for the others. */
  readonly coreSource: 'config' | 'database';
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** `institutions add|update` arguments: the API key and service user in clear (the CLI read them from their files), paths absolute. */
export type InstitutionArgs = { id: string } & { [K in keyof InstitutionInput]?: NonNullable<InstitutionInput[K]> };

export interface InstitutionOperations {
  'institutions.add': { args: InstitutionArgs; result: InstitutionView };
  'institutions.update': { args: InstitutionArgs; result: InstitutionView };
  'institutions.list': { args: Record<string, never>; result: InstitutionView[] };
  'institutions.show': { args: { id: string }; result: InstitutionView };
  'institutions.set-enabled': { args: { id: string; enabled: boolean }; result: InstitutionView };
}

function institutionView(institution: Institution): InstitutionView {
  return {
    id: institution.id,
    name: institution.name,
    coreUrl: institution.coreUrl ?? null,
    enabled: institution.enabled,
    hasApiKey: institution.hasApiKey,
    coreKind: institution.coreKind,
    fineract: institution.fineract
      ? {
          tenant: institution.fineract.tenant,
          ssnDocumentType: institution.fineract.ssnDocumentType,
          customerKey: institution.fineract.customerKey,
          ssnLookup: institution.fineract.ssnLookup,
          sessionTtlSeconds: institution.fineract.sessionTtlSeconds,
        }
      : null,
    hasCredentials: institution.hasCredentials,
    coreTimeoutMs: institution.coreTimeoutMs ?? null,
    coreCaFile: institution.coreCaFile ?? null,
    coreCertFile: institution.coreCertFile ?? null,
    coreKeyFile: institution.coreKeyFile ?? null,
    coreSource: institution.coreSource,
    createdAt: institution.createdAt.toISOString(),
    updatedAt: institution.updatedAt.toISOString(),
  };
}

type Handlers = {
  [N in keyof InstitutionOperations]: (
    args: InstitutionOperations[N]['args'],
  ) => Promise<InstitutionOperations[N]['result']>;
};

export function institutionOperations(services: Pick<Services, 'institutionAdmin'>): Handlers {
  const admin = services.institutionAdmin;
  return {
    'institutions.add': async ({ id, ...input }) => institutionView(await admin.add(id, input)),
    'institutions.update': async ({ id, ...input }) => institutionView(await admin.update(id, input)),
    'institutions.list': async () => (await admin.list()).map(institutionView),
    'institutions.show': async ({ id }) => institutionView(await admin.show(id)),
    'institutions.set-enabled': async ({ id, enabled }) => institutionView(await admin.setEnabled(id, enabled)),
  };
}
