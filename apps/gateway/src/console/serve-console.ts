import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { securityHeaders } from '../http/security-headers';

export const CONSOLE_PREFIX = '/console';

/** Nothing inline (the console needs none), no framing; Swagger UI's looser policy is never shared with it. */
export function consoleSecurityHeaders(): Record<string, string> {
  return securityHeaders({
    contentSecurityPolicy: {
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'"],
        // The CSS kit draws its icons as data: SVGs.
        'img-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'font-src': ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
      },
    },
  });
}

export function isConsoleRequest(url: string): boolean {
  return (
    url === CONSOLE_PREFIX ||
    url.startsWith(`${CONSOLE_PREFIX}/`) ||
    url.startsWith(`${CONSOLE_PREFIX}?`)
  );
}

/** No token needed: the files hold no data. index.html is revalidated so a new build is picked up at once. */
export async function serveConsole(fastify: FastifyInstance, directory: string): Promise<boolean> {
  const root = resolve(directory);
  if (!existsSync(resolve(root, 'index.html'))) return false;
  await fastify.register(fastifyStatic, {
    root,
    prefix: `${CONSOLE_PREFIX}/`,
    // Swagger UI registered the reply decorators already.
    decorateReply: false,
    index: ['index.html'],
    cacheControl: false,
    setHeaders: (reply, path) =>
      void reply.header(
        'cache-control',
        path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      ),
  });
  // Relative asset paths resolve only under /console/.
  fastify.get(CONSOLE_PREFIX, (_request, reply) => void reply.redirect(`${CONSOLE_PREFIX}/`, 301));
  return true;
}
