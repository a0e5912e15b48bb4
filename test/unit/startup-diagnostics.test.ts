/**
 * What start-up tells an operator about a set-up that would otherwise fail quietly: a
 * misspelt `COREGATE_` variable (ignored, its default left in place), an issuer guessed
 * from a wildcard listen address, and why PostgreSQL could not be reached.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  connectFailureReason,
  databaseAddress,
  DatabaseUnreachable,
} from '../../src/adapters/store/postgres-database.js';
import { unknownSettingsInEnvironment, unknownSettingWarning } from '../../src/config/config.js';
import { editDistance, nearestName } from '../../src/config/unknown-settings.js';
import { guessedIssuerWarning } from '../../src/server/issuer-url.js';

describe('unknown COREGATE_ variables', () => {
  it('are named with the nearest known setting', () => {
    const found = unknownSettingsInEnvironment({
      COREGATE_WOKRERS: '2',
      COREGATE_WORKERS: '1',
      PORT: '1',
      COREGATE_REDIS_URI: 'redis://x',
      HOME: '/root',
    });
    assert.deepEqual(found, [
      { name: 'COREGATE_REDIS_URI', nearest: 'COREGATE_REDIS_URL' },
      { name: 'COREGATE_WOKRERS', nearest: 'COREGATE_WORKERS' },
    ]);
    assert.equal(
      unknownSettingWarning(found[1]!),
      'COREGATE_WOKRERS is not a coregate setting and is ignored (did you mean COREGATE_WORKERS?)',
    );
  });

  it('get no suggestion when nothing is near, and the test suite’s own variables are not settings to warn about', () => {
    const found = unknownSettingsInEnvironment({
      COREGATE_SOMETHING_ELSE_ENTIRELY: 'x',
      COREGATE_TEST_PG_URL: 'postgres://x',
    });
    assert.deepEqual(found, [{ name: 'COREGATE_SOMETHING_ELSE_ENTIRELY', nearest: undefined }]);
    assert.match(unknownSettingWarning(found[0]!), /is ignored \(see \.env\.example/);
    assert.deepEqual(unknownSettingsInEnvironment({}), []);
  });

  it('edit distance counts a swap of neighbours as one edit', () => {
    assert.equal(editDistance('WOKRERS', 'WORKERS'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(
      nearestName('COREGATE_DB_POOL_SIZE', ['COREGATE_DB_POOL_MAX', 'COREGATE_DATA_DIR']),
      'COREGATE_DB_POOL_MAX',
    );
  });
});

describe('an issuer guessed from the listening address', () => {
  it('is warned about on a wildcard host, which names no reachable address', () => {
    for (const host of ['0.0.0.0', '::']) {
      const warning = guessedIssuerWarning(undefined, host, 'http://localhost:8080');
      assert.match(
        warning ?? '',
        new RegExp(`COREGATE_ISSUER is not set and HOST=${host.replace(/\./g, '\\.')} listens on every address`),
      );
      assert.match(warning ?? '', /http:\/\/localhost:8080/);
    }
  });

  it('is warned about on another non-loopback address, not on loopback nor when configured', () => {
    assert.match(
      guessedIssuerWarning(undefined, '10.0.0.5', 'http://10.0.0.5:8080') ?? '',
      /COREGATE_ISSUER is not set/,
    );
    assert.equal(guessedIssuerWarning(undefined, '127.0.0.1', 'http://127.0.0.1:8080'), undefined);
    assert.equal(guessedIssuerWarning(undefined, '::1', 'http://[::1]:8080'), undefined);
    assert.equal(guessedIssuerWarning('https://gw.bank.example', '0.0.0.0', 'http://localhost:8080'), undefined);
  });
});

describe('PostgreSQL unreachable at start', () => {
  const url = 'postgres://coregate:pa%24%24word@db.internal:6543/coregate';

  it('names the address tried, never the credentials', () => {
    assert.equal(databaseAddress(url), 'db.internal:6543');
    assert.equal(databaseAddress('postgres://u@127.0.0.1/db'), '127.0.0.1:5432');
    assert.equal(databaseAddress('postgres://u@localhost/db?host=/var/run/postgresql'), '/var/run/postgresql:5432');
    assert.equal(
      new DatabaseUnreachable('127.0.0.1:5499', 'connection refused').message,
      'could not connect to PostgreSQL at 127.0.0.1:5499: connection refused',
    );
  });

  it('says the cause in words', () => {
    const failure = (code: string, message = code) => Object.assign(new Error(message), { code });
    assert.equal(connectFailureReason(failure('ECONNREFUSED'), url, 3000), 'connection refused');
    assert.equal(connectFailureReason(failure('ENOTFOUND'), url, 3000), 'the host name does not resolve');
    assert.equal(
      connectFailureReason(
        Object.assign(new AggregateError([failure('ECONNREFUSED'), failure('ECONNREFUSED')]), {}),
        url,
        3000,
      ),
      'connection refused',
    );
    assert.equal(
      connectFailureReason(new Error('timeout exceeded when trying to connect'), url, 3000),
      'no answer within 3000 ms (COREGATE_DB_TIMEOUT_MS)',
    );
    assert.equal(
      connectFailureReason(failure('28P01', 'password authentication failed for user "coregate"'), url, 3000),
      'password authentication failed for user "coregate"',
    );
    assert.equal(connectFailureReason(new Error('odd: pa$$word leaked'), url, 3000), 'odd: *** leaked');
  });
});
