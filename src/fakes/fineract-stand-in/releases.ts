/**
 * The Fineract releases the stand-in imitates, and what differs between them, each read from
 * `apache/fineract` at its tag (docs/cores/fineract.md#stand-in lists the files). `1.11`
 * is `develop` at 4198b0bcf (2024-10-24): no 1.11 tag was cut from it when it was read.
 */
export const FINERACT_RELEASES = ['1.9', '1.10', '1.11'] as const;
export type FineractRelease = (typeof FINERACT_RELEASES)[number];

export interface ReleaseBehaviour {
  /**
   * `POST /v2/clients/search` also matches identifiers' document keys: FINERACT-2073
   * (`SearchingClientRepositoryImpl`, develop since 2024-05-21; in neither 1.9.0 nor 1.10.1).
   */
  readonly searchMatchesIdentifiers: boolean;
  /** Loan transaction types carry `interestPaymentWaiver` (`LoanTransactionEnumData`, develop). */
  readonly interestPaymentWaiver: boolean;
}

export const RELEASE_BEHAVIOUR: Readonly<Record<FineractRelease, ReleaseBehaviour>> = Object.freeze({
  '1.9': { searchMatchesIdentifiers: false, interestPaymentWaiver: false },
  '1.10': { searchMatchesIdentifiers: false, interestPaymentWaiver: false },
  '1.11': { searchMatchesIdentifiers: true, interestPaymentWaiver: true },
});
