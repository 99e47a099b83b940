import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { securityHeaders } from '../http/security-headers';

/** Where the web console is served: its pages, scripts and styles; the API stays under /v1. */
export const CONSOLE_PREFIX = '/console';

/**
 * The console's Content-Security-Policy: scripts, styles and calls from this origin only,
 * nothing inline (the console is built to need none), no plugins, no framing. The OpenAPI page
 * keeps the looser policy Swagger UI needs; the console never shares it.
 */
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

/**
 * Serves the console's built files from `directory` (no token needed: they hold no data; every
 * call they make carries the operator's token). Hashed assets are cached for good; index.html is
 * revalidated so a new build is picked up at once. Returns false when there is nothing to serve.
 */
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
