/**
 * The events a platform's webhook receivers are told about (docs/behaviour.md#webhook-events): what
 * changed about one of its customers. An event names the customer by its
 * association key only — never personal data, a customer key or a delegate
 * reference ID — so its body is safe to send to any receiver of the platform.
 */
import type { AssociationKey } from './association.js';

export const LIFECYCLE_EVENT_TYPES = [
  'customer.registered',
  'customer.reregistration_required',
  'customer.deregistered',
] as const;
export type LifecycleEventType = (typeof LIFECYCLE_EVENT_TYPES)[number];

/** Why a customer was deregistered. */
export type DeregistrationReason = 'platform_request' | 'operator_revoked';

interface LifecycleEventData {
  readonly institution: string;
  readonly platform: string;
  readonly customerId: string;
  readonly reason?: DeregistrationReason;
}

/** An event to record with the change that causes it (the store writes it in the same transaction). */
export interface LifecycleEvent {
  readonly type: LifecycleEventType;
  /** The platform whose receivers get it. */
  readonly platform: string;
  readonly data: LifecycleEventData;
}

/** The institution of keys that do not name one yet (before associations carry an institution). */
const DEFAULT_INSTITUTION = 'default';

/**
 * The event about the association `key`. The one place that reads an association
 * key's fields for an event: when keys gain `institution`, only this changes.
 */
export function lifecycleEvent(
  type: LifecycleEventType,
  key: AssociationKey,
  reason?: DeregistrationReason,
): LifecycleEvent {
  const institution = (key as AssociationKey & { institution?: string }).institution ?? DEFAULT_INSTITUTION;
  const data: LifecycleEventData = {
    institution,
    platform: key.platform,
    customerId: key.customerId,
    ...(reason ? { reason } : {}),
  };
  return { type, platform: key.platform, data };
}

export function isLifecycleEventType(value: string): value is LifecycleEventType {
  return (LIFECYCLE_EVENT_TYPES as readonly string[]).includes(value);
}
