/** What the figures were measured on, recorded with every run. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { ROOT } from './servers.mjs';

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(`${ROOT}node_modules/${name}/package.json`, 'utf8')).version;
  } catch {
    return undefined;
  }
}

function git(...args) {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export async function describeEnvironment(ctx) {
  let postgres;
  let postgresMaxConnections;
  if (ctx.storages.includes('postgres')) {
    ({ postgres, postgresMaxConnections } = await ctx.pg
      .with(new URL(ctx.pg.adminUrl).toString(), async (client) => ({
        postgres: (await client.query('show server_version')).rows[0].server_version,
        postgresMaxConnections: Number((await client.query('show max_connections')).rows[0].max_connections),
      }))
      .catch(() => ({})));
  }
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'src');
  return {
    cpu: cpus()[0]?.model,
    cpus: cpus().length,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    kernel: `${process.platform} ${release()}`,
    node: process.version,
    postgres,
    postgresMaxConnections,
    autocannon: packageVersion('autocannon'),
    oidcProvider: packageVersion('oidc-provider'),
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
    commit: commit ? `${commit}${dirty ? ' (src/ modified)' : ''}` : undefined,
    pinning: ctx.plan.pinned
      ? `server under test on CPU ${ctx.plan.server}; load generator and core simulator on CPU ${ctx.plan.load} (taskset)`
      : `not pinned (${ctx.plan.reason})`,
  };
}
