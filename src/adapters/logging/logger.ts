/**
 * The process logger. Request bodies are never logged; `redact` is the second
 * line of defence should a secret or a personal field reach a log call anyway.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../../config/config.js';

const SENSITIVE_FIELDS = [
  'authorization',
  'cookie',
  'client_secret',
  'clientSecret',
  'secret',
  'access_token',
  'refresh_token',
  'token',
  'password',
  'socialSecurityNumber',
  'accountNumber',
  'birthDay',
  'demographics',
  'delegateReferenceId',
];

export const REDACTED_PATHS = [
  ...SENSITIVE_FIELDS,
  ...SENSITIVE_FIELDS.map((field) => `*.${field}`),
  ...SENSITIVE_FIELDS.map((field) => `*.*.${field}`),
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
];

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // The pid tells the processes of one service apart (COREGATE_WORKERS, several hosts' logs merged).
      base: { service: 'coregate', pid: process.pid },
    },
    destination ?? pino.destination({ fd: 2, sync: false }),
  );
}
