/**
 * String formats of settings. Each one explains what is wrong with a value, so the
 * one-line ConfigError can say why; TypeBox's format registry only needs yes or no.
 * The explanations never echo the value: URLs may hold passwords, keys are secrets.
 */
import { FormatRegistry } from '@sinclair/typebox';
import { parseCidr } from '../domain/ip-allow-list.js';

export interface SettingFormat {
  /** What the format accepts, for the README table and `--help`. */
  readonly label: string;
  /** Why `value` is not in this format; `undefined` when it is. */
  readonly problem: (value: string) => string | undefined;
}

function urlFormat(protocols: readonly string[]): SettingFormat {
  return {
    label: `URL (${protocols.map((protocol) => `\`${protocol}\``).join(', ')})`,
    problem(value) {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return 'is not a valid URL';
      }
      return protocols.includes(parsed.protocol)
        ? undefined
        : `must use ${protocols.join(' or ')} (got ${parsed.protocol})`;
    },
  };
}

const base64Key: SettingFormat = {
  label: '32 bytes, base64',
  problem(value) {
    // Each problem says how to make a good key: people paste passwords here.
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value))
      return 'must be base64 of 32 random bytes: generate one with: openssl rand -base64 32';
    const length = Buffer.from(value, 'base64').length;
    return length === 32
      ? undefined
      : `must decode to 32 bytes, got ${length}: generate one with: openssl rand -base64 32`;
  },
};

const proxyAddress: SettingFormat = {
  label: 'address or CIDR block',
  problem(value) {
    const parsed = parseCidr(value);
    return parsed.ok ? undefined : parsed.reason;
  },
};

/** The formats by name, as the schema's `format` keyword names them. */
export const SETTING_FORMATS: Readonly<Record<string, SettingFormat>> = Object.freeze({
  'postgres-url': urlFormat(['postgres:', 'postgresql:']),
  'http-url': urlFormat(['http:', 'https:']),
  'redis-url': urlFormat(['redis:', 'rediss:']),
  'base64-key': base64Key,
  'proxy-address': proxyAddress,
});

for (const [name, format] of Object.entries(SETTING_FORMATS)) {
  FormatRegistry.Set(name, (value) => format.problem(value) === undefined);
}
