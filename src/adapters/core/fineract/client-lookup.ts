/**
 * Finding the Fineract client a registration names (docs/cores/fineract.md#registration):
 * Form B by its id or external id, Form A by SSN, birth day and account number. Form A makes
 * the same calls, in number and kind, whichever of its tests fails, so neither time nor
 * Fineract's load tells a platform which one did; the answer never says either.
 */
import type { Semaphore } from 'async-mutex';
import type { FineractCustomerKeyMode, FineractSsnLookupMode } from '../../../domain/institution.js';
import type { RegistrationSubject } from '../../../domain/registration.js';
import {
  CoreProtocolError,
  CustomerNotRecognised,
  DemographicsNotAccepted,
  type CoreCallContext,
} from '../../../ports/core-connector.js';
import { readClientAccounts, type ListedAccount } from './account-mapping.js';
import {
  absent,
  array,
  dateField,
  FINERACT_ID,
  flag,
  idField,
  listField,
  object,
  optionalNumber,
  optionalString,
  optionalText,
  stringField,
} from './answer-reader.js';
import { calls, PROBE_CLIENT_ID } from './fineract-calls.js';
import type { FineractRequest } from './fineract-http.js';
import { callGate, readAnswer, type FineractReader } from './fineract-reader.js';

/** A client as `GET /v1/clients/{id}` answers it, reduced to what registration needs. */
export interface ClientFacts {
  readonly id: string;
  readonly active: boolean;
  readonly externalId: string | undefined;
  /** `YYYY-MM-DD`, or `undefined` when Fineract has none. */
  readonly birthDay: string | undefined;
}

export interface ClientLookupSettings {
  readonly customerKey: FineractCustomerKeyMode;
  readonly ssnLookup: FineractSsnLookupMode;
  readonly ssnDocumentType: string;
}

/** Clients one SSN search may find: more people than that sharing one number's digits is not a match. */
const MAX_SEARCH_HITS = 50;

type Demographics = Extract<RegistrationSubject, { kind: 'demographics' }>;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** The SSN's 9 digits, and the `123-45-6789` form. */
function ssnSearchTexts(digits: string): string[] {
  return [digits, `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`];
}

function tooManyHits(request: FineractRequest): CoreProtocolError {
  return new CoreProtocolError(
    `Fineract's answer to ${request.template} holds more than ${MAX_SEARCH_HITS} clients, the limit of one SSN search`,
    true,
  );
}

export class FineractClientLookup {
  constructor(
    private readonly reader: FineractReader,
    private readonly settings: ClientLookupSettings,
  ) {}

  /**
   * Form B: the client by id (1 to 18 digits, kept as text) or by external id (`.` and `..`
   * are refused without a call: they would travel as path segments), active, and answering
   * as the very client asked for.
   */
  async byKey(customerKey: string, context: CoreCallContext): Promise<ClientFacts> {
    let client: ClientFacts | undefined;
    if (this.settings.customerKey === 'id') {
      if (!FINERACT_ID.test(customerKey)) throw new CustomerNotRecognised();
      client = await this.client(calls.client(customerKey), context);
      if (client && client.id !== customerKey) client = undefined;
    } else {
      if (customerKey === '.' || customerKey === '..') throw new CustomerNotRecognised();
      client = await this.client(calls.clientByExternalId(customerKey), context);
      if (client && client.externalId !== customerKey) client = undefined;
    }
    if (!client?.active) throw new CustomerNotRecognised();
    return client;
  }

  /**
   * Form A: the one active client with an identifier of the configured type holding the
   * SSN's digits (not inactive), born on the birth day, holding a savings or loan account
   * with that account number. Every candidate gets the same three reads, all of them; with
   * no candidate, the three reads go to client 0, which no Fineract holds.
   */
  async byDemographics(subject: Demographics, context: CoreCallContext): Promise<ClientFacts> {
    if (this.settings.ssnLookup === 'off') throw new DemographicsNotAccepted();
    const gate = callGate();
    const found = await Promise.all(
      ssnSearchTexts(subject.socialSecurityNumber).map((text) => this.search(text, context, gate)),
    );
    const candidates = [...new Set(found.flat())];
    if (candidates.length === 0) candidates.push(PROBE_CLIENT_ID);
    const matches = (await Promise.all(candidates.map((id) => this.matchCandidate(id, subject, context, gate)))).filter(
      (client): client is ClientFacts => client !== undefined,
    );
    if (matches.length !== 1) throw new CustomerNotRecognised();
    return matches[0]!;
  }

  /** Ids of the clients the configured SSN lookup finds for `text`. */
  private async search(text: string, context: CoreCallContext, gate: Semaphore): Promise<string[]> {
    if (this.settings.ssnLookup === 'identifier-search') {
      const request = calls.identifierSearch(text);
      const json = await this.reader.required(request, context, gate);
      return readAnswer(request, () => {
        const hits = array(json, '');
        // Fineract stops at 50 rows (`SearchReadPlatformServiceImpl`): a full page may hide more.
        if (hits.length >= MAX_SEARCH_HITS) throw tooManyHits(request);
        return hits.flatMap((item, index) => {
          const hit = object(item, `[${index}]`);
          return optionalString(hit, 'entityType', `[${index}]`)?.toUpperCase() === 'CLIENTIDENTIFIER'
            ? [idField(hit, 'parentId', `[${index}]`)]
            : [];
        });
      });
    }
    const request = calls.search(JSON.stringify({ request: { text }, page: 0, size: MAX_SEARCH_HITS }));
    const json = await this.reader.required(request, context, gate);
    return readAnswer(request, () => {
      const page = object(json, '');
      const content = listField(page, 'content', '');
      if (content.length > MAX_SEARCH_HITS || (optionalNumber(page, 'totalElements', '') ?? 0) > MAX_SEARCH_HITS)
        throw tooManyHits(request);
      return content.map((item, index) => idField(object(item, `content[${index}]`), 'id', `content[${index}]`));
    });
  }

  private async matchCandidate(
    id: string,
    subject: Demographics,
    context: CoreCallContext,
    gate: Semaphore,
  ): Promise<ClientFacts | undefined> {
    const accountsRequest = calls.accounts(id);
    const [holdsSsn, client, accounts] = await Promise.all([
      this.holdsSsn(id, subject.socialSecurityNumber, context, gate),
      this.client(calls.client(id), context, gate),
      this.reader.optional(accountsRequest, context, gate),
    ]);
    if (!holdsSsn || client?.id !== id || !client.active || client.birthDay !== subject.birthDay) return undefined;
    if (accounts === undefined) return undefined;
    const listed = readAnswer(accountsRequest, () => readClientAccounts(accounts));
    const holds = (account: ListedAccount) => account.accountNo === subject.accountNumber;
    return listed.savings.some(holds) || listed.loans.some(holds) ? client : undefined;
  }

  private async client(
    request: FineractRequest,
    context: CoreCallContext,
    gate?: Semaphore,
  ): Promise<ClientFacts | undefined> {
    const json = await this.reader.optional(request, context, gate);
    if (json === undefined) return undefined;
    return readAnswer(request, () => {
      const client = object(json, '');
      const dateOfBirth = absent(client, 'dateOfBirth') ? undefined : dateField(client, 'dateOfBirth', '');
      return {
        id: idField(client, 'id', ''),
        active: flag(client, 'active', ''),
        externalId: optionalText(client, 'externalId', ''),
        birthDay: dateOfBirth && `${pad(dateOfBirth.year, 4)}-${pad(dateOfBirth.month, 2)}-${pad(dateOfBirth.day, 2)}`,
      };
    });
  }

  /** Whether the client has an identifier of the configured type, not inactive, whose digits are the SSN's. */
  private async holdsSsn(id: string, digits: string, context: CoreCallContext, gate: Semaphore): Promise<boolean> {
    const request = calls.identifiers(id);
    const json = await this.reader.optional(request, context, gate);
    if (json === undefined) return false;
    const documentType = this.settings.ssnDocumentType.trim().toLowerCase();
    return readAnswer(request, () =>
      array(json, '').some((item, index) => {
        const at = `[${index}]`;
        const identifier = object(item, at);
        const type = object(identifier.documentType, `${at}.documentType`);
        if (optionalString(type, 'name', `${at}.documentType`)?.trim().toLowerCase() !== documentType) return false;
        const status = optionalString(identifier, 'status', at) ?? '';
        if (status.toLowerCase().endsWith('inactive')) return false;
        return stringField(identifier, 'documentKey', at).replace(/\D/g, '') === digits;
      }),
    );
  }
}
