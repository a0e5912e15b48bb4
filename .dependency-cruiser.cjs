/**
 * The layering of src/ (docs/architecture.md), checked by `npm run lint:arch`
 * (part of `npm test`): a forbidden import or a cycle fails the run.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere in src/.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-only-domain',
      severity: 'error',
      comment: 'The domain (entities, rules, errors) imports nothing else of ours.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'ports-import-only-domain',
      severity: 'error',
      comment: 'Ports are interfaces over the domain.',
      from: { path: '^src/ports/' },
      to: { path: '^src/', pathNot: '^src/(domain|ports)/' },
    },
    {
      name: 'app-uses-ports-not-infrastructure',
      severity: 'error',
      comment: 'Use cases see ports only: no adapters, HTTP, server, configuration or CLI.',
      from: { path: '^src/app/' },
      to: { path: '^src/(adapters|http|server|config|cli)/' },
    },
    {
      name: 'http-gets-use-cases-injected',
      severity: 'error',
      comment: 'buildApp(deps) receives its use cases: no adapters, server, configuration or CLI.',
      from: { path: '^src/http/' },
      to: { path: '^src/(adapters|server|config|cli)/' },
    },
    {
      name: 'adapters-never-call-use-cases',
      severity: 'error',
      comment:
        'Adapters implement ports (and may read their configuration); they never call use cases or the layers above.',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(app|http|server|cli)/' },
    },
    {
      name: 'config-is-a-leaf',
      severity: 'error',
      comment: 'Configuration is read by everyone and reads only the domain.',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/(config|domain)/' },
    },
    {
      name: 'server-never-imports-cli',
      severity: 'error',
      comment: 'The CLI is a client of the server (its admin operations), never the other way round.',
      from: { path: '^src/server/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-goes-through-the-server',
      severity: 'error',
      comment: 'The CLI reaches the database, the simulator and other adapters through src/server/.',
      from: { path: '^src/cli/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'fakes-stand-apart',
      severity: 'error',
      comment:
        'The fakes (the core simulator, the Fineract stand-in) imitate systems outside coregate: they read the domain, the ports and the wire definitions of the protocols they imitate, and nothing else of ours.',
      from: { path: '^src/fakes/' },
      to: {
        path: '^src/',
        pathNot: '^src/(fakes|domain|ports|adapters/clock)/|^src/adapters/core/(protocol|account-record)[.]ts$',
      },
    },
    {
      name: 'only-the-in-process-core-runs-a-fake',
      severity: 'error',
      comment:
        'No adapter, use case, route or setting depends on a fake; the in-process core connector runs the simulator inside coregate (the zero-setup default), and src/server/ starts the fakes as commands.',
      from: {
        path: '^src/(adapters|app|http|config|domain|ports|cli)/',
        pathNot: '^src/adapters/core/(in-process-core-connector|create-core-connector)[.]ts$',
      },
      to: { path: '^src/fakes/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
