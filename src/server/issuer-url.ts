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
