/**
 * The stored association between a platform's customer and a core customer, and
 * the rule deciding when its core session must be renewed (docs/behaviour.md#renewal).
 */

/**
 * Associations are keyed by (institution, platform, customerId): each platform has
 * its own customer ids at each institution (docs/behaviour.md#institution-isolation).
 */
export interface AssociationKey {
  /** The institution (bank) whose core holds the customer. */
  readonly institution: string;
  readonly platform: string;
  readonly customerId: string;
}

/** Whose customers: a platform at an institution (the key without the customerId). */
export type AssociationOwner = Pick<AssociationKey, 'institution' | 'platform'>;

/** The key of an association, from its row or any object carrying the key's fields. */
export function associationKeyOf(from: AssociationKey): AssociationKey {
  return { institution: from.institution, platform: from.platform, customerId: from.customerId };
}

export interface Association extends AssociationKey {
  readonly customerKey: string;
  /** The delegate reference ID in clear, in memory only; stored sealed. Empty when {@link delegateUnreadable}. */
  readonly delegateReferenceId: string;
  /**
   * The stored (sealed) delegate reference ID could not be opened: sealed under an encryption
   * key this process no longer holds, or damaged. The core session is lost to us, so it is
   * renewed like one the core rejected (docs/behaviour.md#rejected-sessions).
   */
  readonly delegateUnreadable?: true;
  readonly expiresAt: Date;
  /** Set when the core no longer recognises `customerKey`: only a new registration helps. */
  readonly needsReregistration: boolean;
  /** Increases with every new core session; the compare-and-swap token for renewals. */
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * True when a new core session must be started before calling the core:
 * `now >= expiresAt - skew`. Renewing a little early means the ID never expires
 * between this check and the core receiving the call.
 */
export function needsRenewal(expiresAt: Date, now: Date, skewSeconds: number): boolean {
  return now.getTime() >= expiresAt.getTime() - skewSeconds * 1000;
}
