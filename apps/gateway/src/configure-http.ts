import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { StatusError } from '@rollout/contracts';
import { ClientMetrics } from '@rollout/platform/metrics';
import { BUILD_VERSION } from '@rollout/platform/service-kit';
import { Config, GATEWAY_CONFIG } from './config';
import { consoleSecurityHeaders, isConsoleRequest, serveConsole } from './console/serve-console';
import { runInClientContext } from './http/client-context';
import { isCustomMethod, registerBodyParsers } from './http/body-parsers';
import { ErrorResponseDto } from './http/error-response.dto';
import { GatewayValidationPipe, UnfitParametersInterceptor } from './http/input-guards';
import { BEARER_AUTH, BLAZAR_TOKEN_AUTH } from './http/openapi-security';
import { securityHeaders } from './http/security-headers';

function depthOf(value: unknown, limit: number, depth = 0): number {
  if (depth > limit || typeof value !== 'object' || value === null) return depth;
  let deepest = depth;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, limit, depth + 1));
    if (deepest > limit) break;
  }
  return deepest;
}

export async function configureHttp(nestApp: INestApplication): Promise<void> {
  const app = nestApp as NestFastifyApplication;
  const config = app.get<Config>(GATEWAY_CONFIG);
  const fastify = app.getHttpAdapter().getInstance();
  const hardened = securityHeaders({
    contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"] } },
  });
  const consoleHeaders = consoleSecurityHeaders();
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(isConsoleRequest(request.url) ? consoleHeaders : hardened);
    done();
  });
  if (config.CORS_ORIGINS)
    app.enableCors({ origin: config.CORS_ORIGINS.split(',').map((o) => o.trim()) });
  registerBodyParsers(fastify);
  // The root has no API: it sends a browser to the console and names the API's docs.
  fastify.get('/', (_request, reply) =>
    reply.header('link', '</docs>; rel="service-doc"').redirect('/console/', 302),
  );
  const metrics = app.get(ClientMetrics);
  fastify.addHook('preHandler', (request, reply, done) => {
    // Deeply nested JSON is a cheap way to burn CPU in every later traversal: refuse it early.
    if (depthOf(request.body, config.JSON_MAX_DEPTH) > config.JSON_MAX_DEPTH) {
      return done(
        StatusError.invalidArgument(`JSON nested deeper than ${config.JSON_MAX_DEPTH} levels.`),
      );
    }
    // A custom method (…:backtest) without a body takes its defaults; elsewhere no body is a 400.
    if (request.body === undefined && isCustomMethod(request.routeOptions.url)) request.body = {};
    runInClientContext(metrics, request.headers, reply.raw, done);
  });
  app.useGlobalPipes(new GatewayValidationPipe());
  app.useGlobalInterceptors(new UnfitParametersInterceptor());
  const document = SwaggerModule.createDocument(app, openApiConfig());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
  await serveConsole(fastify, config.CONSOLE_DIR);
}

export function openApiConfig() {
  return new DocumentBuilder()
    .setTitle('Policy rollout API')
    .setDescription(
      'Preview, commit and enforce policy changes safely. Errors follow google.rpc.Status (AIP-193): ' +
        '`{"error": {"code", "status", "message", "details"}}`. Every route but the probes needs ' +
        '`Authorization: Bearer <token>`.',
    )
    .setVersion(BUILD_VERSION)
    .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
    .addServer('/', 'The gateway serving this document')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key or a JWT (see the README, Security)',
      },
      BEARER_AUTH,
    )
    .addSecurityRequirements(BEARER_AUTH)
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-Auth-Token',
        description: "The token Blazar's ExternalServiceFilter sends",
      },
      BLAZAR_TOKEN_AUTH,
    )
    .addGlobalResponse(
      { status: 401, description: 'UNAUTHENTICATED: no valid token', type: ErrorResponseDto },
      {
        status: 500,
        description: 'INTERNAL: logged with the errorId it returns',
        type: ErrorResponseDto,
      },
    )
    .build();
}
