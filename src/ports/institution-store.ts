/**
 * Persistence of institutions (docs/behaviour.md#institutions). The core API key is stored sealed;
 * the store seals and opens it through the `SecretSealer` it was given, so callers
 * only ever see it in clear, in memory.
 */
import type { InstitutionRecord } from '../domain/institution.js';
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
  readonly createdAt: Date;
}

/** What `institutions update` changes: a field left `undefined` keeps its value. */
export type InstitutionChanges = {
  readonly [
    K in 'name' | 'coreUrl' | 'coreApiKey' | 'coreCaFile' | 'coreCertFile' | 'coreKeyFile' | 'coreTimeoutMs'
  ]?: NonNullable<NewInstitution[K]>;
};

export interface InstitutionStore {
  /** `undefined` when the id is taken. */
  create(institution: NewInstitution): Promise<InstitutionRecord | undefined>;
  update(id: string, changes: InstitutionChanges, at: Date): Promise<InstitutionRecord | undefined>;
  setEnabled(id: string, enabled: boolean, at: Date): Promise<InstitutionRecord | undefined>;
  find(id: string): Promise<InstitutionRecord | undefined>;
  /** Every institution by id; `deadline`: that of the request that reads them (`database-deadline.ts`). */
  list(deadline?: DatabaseDeadline): Promise<InstitutionRecord[]>;
}
