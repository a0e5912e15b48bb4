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
      name: 'console-goes-through-the-operations',
      comment:
        'The operator console is a client of the admin operations, like the CLI: it gets its services injected and never reaches an adapter.',
      from: { path: '^src/console/' },
      to: { path: '^src/(adapters|cli)/' },
    },
    {
      name: 'cli-goes-through-the-server',
      severity: 'error',
      comment: 'The CLI reaches the database, the simulator and other adapters through src/server/.',
      from: { path: '^src/cli/' },
      to: { path: '^src/adapters/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
