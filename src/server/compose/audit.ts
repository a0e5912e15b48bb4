/** The audit log (docs/behaviour.md#audit-log): written by the use cases, read by `coregate audit list`. */
import { AuditTrail } from '../../app/audit-trail.js';
import { AuditReader } from '../../app/read-audit-log.js';
import { SqlAuditLog } from '../../adapters/store/sql-audit-log.js';
import type { Basics } from './basics.js';

export interface Audit {
  readonly audit: AuditTrail;
  readonly auditReader: AuditReader;
}

export function buildAudit({ logger, clock, database }: Basics): Audit {
  const auditLog = new SqlAuditLog(database);
  return {
    // A failed write is logged at error level with the event, never turned into an error answer.
    audit: new AuditTrail(auditLog, clock, {
      // The request's id at the top, as on every line a request causes (null for operator commands).
      onFailure: (error, event) =>
        logger.error(
          { ...(event.requestId === null ? {} : { reqId: event.requestId }), err: error, audit: event },
          'audit log write failed',
        ),
    }),
    auditReader: new AuditReader(auditLog),
  };
}
