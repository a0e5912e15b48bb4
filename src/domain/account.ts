/** An account as the core reports it (spec §2.3); every field is required. */
export interface AccountRecord {
  readonly id: string;
  readonly customerKey: string;
  readonly guid: string;
  readonly nickname: string;
  readonly accountReferenceId: string;
  /** Single-letter account type code. */
  readonly type: string;
  readonly currentBalance: number;
  readonly availableBalance: number;
  /** A fraction: 0.0425 is 4.25 %. */
  readonly interestRate: number;
  readonly accruedInterest: number;
  readonly yearToDateInterest: number;
  readonly paidYearToDateInterest: number;
  readonly pastDueAmount: number;
  readonly creditLimit: number;
  readonly availableCredit: number;
  /** Date-time without zone, `YYYY-MM-DDTHH:mm:ss`. */
  readonly originationDate: string;
  /** Date-time without zone; `0001-01-01T00:00:00` stands for no date. */
  readonly nextPaymentDate: string;
  /** Date-time without zone; `0001-01-01T00:00:00` stands for no date. */
  readonly maturityDate: string;
  readonly productCode: string;
  readonly isDefault: boolean;
  readonly hasCard: boolean;
  /** `Y` or `N`. */
  readonly receiveEmailNotices: string;
  readonly receiveEmailStatements: string;
  readonly receivePaperNotices: string;
  readonly receivePaperStatements: string;
  /** Single-letter code. */
  readonly authorizationCode: string;
  readonly originalBalance: number;
}

/** The minimum date-time, meaning "no date" in account records. */
export const NO_DATE = '0001-01-01T00:00:00';
