/**
 * String formats of settings. Each one explains what is wrong with a value, so the
 * one-line ConfigError can say why; TypeBox's format registry only needs yes or no.
 * The explanations never echo the value: URLs may hold passwords, keys are secrets.
 */
import { FormatRegistry } from '@sinclair/typebox';
import { httpUrlProblem } from '../domain/institution-settings.js';
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

/**
 * A comma-separated list of `key=value` pairs with percent-encoded values, the form of
 * OpenTelemetry's `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_RESOURCE_ATTRIBUTES`; an error
 * (a string) names the position of the bad pair, never its text (headers carry API keys).
 */
export function parseKeyValueList(
  value: string,
  key: RegExp,
): { ok: true; pairs: Record<string, string> } | { ok: false; reason: string } {
  const pairs: Record<string, string> = {};
  const parts = value.split(',');
  for (const [index, part] of parts.entries()) {
    if (part.trim() === '') continue;
    const equals = part.indexOf('=');
    const name = equals < 0 ? '' : part.slice(0, equals).trim();
    if (!key.test(name)) return { ok: false, reason: `entry ${index + 1} is not name=value with a valid name` };
    try {
      pairs[name] = decodeURIComponent(part.slice(equals + 1).trim());
    } catch {
      return { ok: false, reason: `entry ${index + 1} has a value that is not percent-encoded correctly` };
    }
  }
  return { ok: true, pairs };
}

/** An HTTP header name (RFC 9110 §5.1: a token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An OpenTelemetry attribute key: printable, no separator of the list itself. */
export const ATTRIBUTE_KEY = /^[\x21-\x7e]+$/;

function keyValueList(label: string, key: RegExp): SettingFormat {
  return {
    label,
    problem(value) {
      const parsed = parseKeyValueList(value, key);
      return parsed.ok ? undefined : `must be name=value pairs separated by commas: ${parsed.reason}`;
    },
  };
}

const samplingRatio: SettingFormat = {
  label: 'number from 0 to 1',
  problem(value) {
    const ratio = Number(value);
    return value.trim() !== '' && Number.isFinite(ratio) && ratio >= 0 && ratio <= 1
      ? undefined
      : `must be a number from 0 to 1, got "${value}"`;
  },
};

/** The formats by name, as the schema's `format` keyword names them. */
export const SETTING_FORMATS: Readonly<Record<string, SettingFormat>> = Object.freeze({
  'postgres-url': urlFormat(['postgres:', 'postgresql:']),
  'http-url': urlFormat(['http:', 'https:']),
  'redis-url': urlFormat(['redis:', 'rediss:']),
  // A core's URL: the rule `institutions add|update` applies too (src/domain/institution-settings.ts).
  'core-url': { label: 'URL (`http:`, `https:`), no credentials', problem: httpUrlProblem },
  'base64-key': base64Key,
  'proxy-address': proxyAddress,
  'otlp-headers': keyValueList('`name=value,…`', HEADER_NAME),
  'otel-attributes': keyValueList('`key=value,…`', ATTRIBUTE_KEY),
  'sampling-ratio': samplingRatio,
});

for (const [name, format] of Object.entries(SETTING_FORMATS)) {
  FormatRegistry.Set(name, (value) => format.problem(value) === undefined);
}
