/** `GET /`: a small JSON index, so that a person or a program who opens the base URL finds the rest. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

export interface IndexRouteOptions {
  readonly version: string;
}

const IndexSchema = Type.Object(
  {
    name: Type.Literal('coregate'),
    version: Type.String(),
    links: Type.Object({
      docs: Type.Literal('/docs'),
      openapi: Type.Literal('/openapi.json'),
      discovery: Type.Literal('/.well-known/oauth-authorization-server'),
      jwks: Type.Literal('/.well-known/jwks.json'),
      token: Type.Literal('/oauth2/token'),
    }),
  },
  { description: 'Where to go from here' },
);

// eslint-disable-next-line @typescript-eslint/require-await -- Fastify waits for a plugin's promise; without one it waits for a done callback.
export async function indexRoute(app: FastifyInstance, options: IndexRouteOptions): Promise<void> {
  app.get(
    '/',
    { schema: { summary: 'Index: name, version and links', tags: ['operations'], response: { 200: IndexSchema } } },
    () => ({
      name: 'coregate' as const,
      version: options.version,
      links: {
        docs: '/docs' as const,
        openapi: '/openapi.json' as const,
        discovery: '/.well-known/oauth-authorization-server' as const,
        jwks: '/.well-known/jwks.json' as const,
        token: '/oauth2/token' as const,
      },
    }),
  );
}
