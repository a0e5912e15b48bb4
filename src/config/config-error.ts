/** A setting that cannot be used; its message is one line naming the variable and why. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}
