/** The issuer URL, fixed once the listening address is known. */
export class IssuerUrl {
  private value: string | undefined;
  constructor(configured: string | undefined) {
    this.value = configured;
  }
  get = (): string => {
    if (this.value === undefined) throw new Error('issuer URL used before the server listens');
    return this.value;
  };
  /** Sets the URL unless configuration fixed it. */
  resolve(url: string): void {
    this.value ??= url.replace(/\/+$/, '');
  }
}

/** Listen addresses meaning "every address of this machine": the URL made from them names none a caller can use. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);
const LOOPBACK_URL = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\]):/;

/**
 * What to warn about when no COREGATE_ISSUER is configured and the issuer was taken from
 * the listening address (`url`): the issuer is the `iss` of every token and the base of the
 * discovery document, so it must be the URL callers use. `undefined` when there is nothing
 * to say (an issuer configured, or a loopback address on a development machine).
 */
export function guessedIssuerWarning(configured: string | undefined, host: string, url: string): string | undefined {
  if (configured !== undefined) return undefined;
  if (WILDCARD_HOSTS.has(host)) {
    return `COREGATE_ISSUER is not set and HOST=${host} listens on every address: the issuer (the iss of tokens, the discovery document's URLs) was guessed as ${url}, which other machines cannot reach; set COREGATE_ISSUER to the public URL`;
  }
  if (LOOPBACK_URL.test(url)) return undefined;
  return `COREGATE_ISSUER is not set: tokens name the listening address ${url} as their issuer; set COREGATE_ISSUER to the public URL`;
}
