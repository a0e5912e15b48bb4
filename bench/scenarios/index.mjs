/** The scenarios, in the order a full run goes through them; each module runs the scenario names in its `names`. */
import * as token from './token.mjs';
import * as tokenHsm from './token-hsm.mjs';
import * as gateway from './gateway.mjs';
import * as fineract from './fineract.mjs';
import * as storm from './storm.mjs';
import * as scale from './scale.mjs';
import * as ceiling from './ceiling.mjs';
import * as cores from './cores.mjs';
import * as bulk from './bulk.mjs';

export const SCENARIOS = [token, tokenHsm, gateway, fineract, storm, scale, ceiling, cores, bulk];
