/**
 * Strict reading of `application/x-www-form-urlencoded` bodies for the OAuth
 * endpoints: a parameter may appear once (RFC 6749 §3.2), and a parameter sent
 * without a value counts as absent (RFC 6749 §3.1).
 */
import { invalidRequest } from '../domain/errors.js';

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** Names are echoed in error descriptions only when they look like OAuth parameter names. */
function quoted(name: string): string {
  return /^[a-z_]{1,32}$/.test(name) ? ` "${name}"` : '';
}

/** Throws `invalid_request` unless the media type is form-urlencoded (UTF-8 charset allowed). */
export function assertFormContentType(contentType: string | undefined): void {
  if (contentType === undefined) throw invalidRequest(`Content-Type must be ${FORM_MEDIA_TYPE}`);
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== FORM_MEDIA_TYPE) throw invalidRequest(`Content-Type must be ${FORM_MEDIA_TYPE}`);
  for (const parameter of parameters) {
    if (parameter === '') continue;
    const [name, value = ''] = parameter.split('=').map((part) => part.trim());
    if (name === 'charset' && /^"?(utf-8|us-ascii)"?$/.test(value)) continue;
    throw invalidRequest(`unsupported Content-Type parameter${quoted(name ?? '')}`);
  }
}

/** Parses the body into single-valued parameters; empty values are dropped. */
export function parseForm(body: string): Map<string, string> {
  const parameters = new Map<string, string>();
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(body)) {
    if (seen.has(name)) throw invalidRequest(`parameter${quoted(name)} is given more than once`);
    seen.add(name);
    if (value !== '') parameters.set(name, value);
  }
  return parameters;
}
