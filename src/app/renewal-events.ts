/**
 * What happens around a core session renewal besides the renewal itself: it is
 * counted, audited (`session.renewed`, `session.reregistration_required`), and
 * waits on another renewal are counted by kind.
 */
import type { MetricsRecorder } from '../ports/metrics.js';
import { auditedRenewals, type AuditTrail } from './audit-trail.js';
import type { RenewalEvents } from './core-session-keeper.js';

/** The {@link CoreSessionKeeper}'s events: metrics and audit log. */
export function observedRenewals(
  audit: AuditTrail,
  metrics: Pick<MetricsRecorder, 'sessionRenewed' | 'singleFlightWait'>,
): RenewalEvents {
  const audited = auditedRenewals(audit);
  return {
    onRenewal: (association, context) => {
      metrics.sessionRenewed();
      return audited.onRenewal(association, context);
    },
    onReregistrationRequired: audited.onReregistrationRequired,
    onJoin: () => metrics.singleFlightWait('in_process'),
    onWait: () => metrics.singleFlightWait('cross_process'),
  };
}
