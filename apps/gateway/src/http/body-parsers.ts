import type { FastifyInstance } from 'fastify';

const JSON_TYPES = ['application/json', 'application/json-patch+json'];
const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];

/** Whether a route is an AIP-136 custom method (`…/{experiment}:backtest`, spelled `::backtest`). */
export const isCustomMethod = (url: string | undefined) => /::[A-Za-z]+$/.test(url ?? '');

/** 415, naming the type received and the ones accepted, so a client knows what to change. */
function unsupportedMediaType(received: string | undefined): Error {
  const what = received
    ? `Content type ${received} is not accepted`
    : 'A body needs a content type';
  return Object.assign(
    new Error(
      `${what}: send application/json (application/json-patch+json or YAML where a route says so).`,
    ),
    { statusCode: 415 },
  );
}

/** An empty JSON body is no body (a custom method then takes its defaults); any other type is 415. */
export function registerBodyParsers(fastify: FastifyInstance): void {
  const json = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(JSON_TYPES, { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : json(request, body as string, done),
  );
  fastify.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  fastify.addContentTypeParser('*', (request, _payload, done) =>
    done(unsupportedMediaType(request.headers['content-type']), undefined),
  );
}
