/**
 * Debian's Chromium driven by playwright-core, as the browser tests launch it: headless, with the
 * background networking a closed network refuses turned off. Outside CI a missing Chromium skips
 * those tests with the reason; under CI=true it fails them (`.ci/run` installs it).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env['COREGATE_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const chromiumMissing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
/** The `skip` option of a browser test: skipped only outside CI. */
export const chromiumSkip = process.env['CI'] === 'true' ? false : chromiumMissing;

/** Starts Chromium, or fails the test under CI when it is not installed. */
export async function launchChromium(): Promise<Browser> {
  if (chromiumMissing) assert.fail(`${chromiumMissing}: CI requires it`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // playwright-core gives each launch a fresh temporary profile.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 20_000,
  });
}
