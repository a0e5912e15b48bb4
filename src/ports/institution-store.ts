/**
 * Persistence of institutions (docs/behaviour.md#institutions). The core API key and the core's
 * service user are stored sealed; the store seals and opens them through the `SecretSealer` it
 * was given, so callers only ever see them in clear, in memory.
 */
import type { CoreCredentials, CoreKind, FineractSettings, InstitutionRecord } from '../domain/institution.js';
import type { DatabaseDeadline } from './database-deadline.js';

export interface NewInstitution {
  readonly id: string;
  readonly name: string;
  readonly coreUrl: string;
  readonly coreApiKey: string | undefined;
  readonly coreCaFile: string | undefined;
  readonly coreCertFile: string | undefined;
  readonly coreKeyFile: string | undefined;
  readonly coreTimeoutMs: number | undefined;
  readonly coreKind: CoreKind;
  /** Set for a Fineract core. */
  readonly fineract: FineractSettings | undefined;
  readonly coreCredentials: CoreCredentials | undefined;
  readonly createdAt: Date;
}

/** What `institutions update` changes: a field left `undefined` keeps its value (each Fineract setting too). */
export type InstitutionChanges = {
  readonly [
    K in
      | 'name'
      | 'coreUrl'
      | 'coreApiKey'
      | 'coreCaFile'
      | 'coreCertFile'
      | 'coreKeyFile'
      | 'coreTimeoutMs'
      | 'coreKind'
      | 'coreCredentials'
  ]?: NonNullable<NewInstitution[K]>;
} & { readonly fineract?: Partial<FineractSettings> };

export interface InstitutionStore {
  /** `undefined` when the id is taken. */
  create(institution: NewInstitution): Promise<InstitutionRecord | undefined>;
  update(id: string, changes: InstitutionChanges, at: Date): Promise<InstitutionRecord | undefined>;
  setEnabled(id: string, enabled: boolean, at: Date): Promise<InstitutionRecord | undefined>;
  find(id: string): Promise<InstitutionRecord | undefined>;
  /** Every institution by id; `deadline`: that of the request that reads them (`database-deadline.ts`). */
  list(deadline?: DatabaseDeadline): Promise<InstitutionRecord[]>;
}
