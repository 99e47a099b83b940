/**
 * The app in preview mode (module graph only, no provider, no connection), as /docs builds it. A
 * process of its own: tools do not import apps (module boundaries), so the gateway is loaded by path.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { join } from 'node:path';

interface GatewayModules {
  appModule: { AppModule: { forRoot(config: unknown): unknown } };
  config: { configSchema: { parse(input: unknown): unknown } };
  http: { openApiConfig(): Parameters<typeof SwaggerModule.createDocument>[1] };
}

async function main(): Promise<void> {
  const gateway = join(process.argv[2] ?? process.cwd(), 'apps', 'gateway', 'src');
  const load = (file: string) => require(join(gateway, file)) as unknown; // eslint-disable-line @typescript-eslint/no-require-imports
  const modules: GatewayModules = {
    appModule: load('app.module') as GatewayModules['appModule'],
    config: load('config') as GatewayModules['config'],
    http: load('configure-http') as GatewayModules['http'],
  };
  // The defaults: the document does not depend on deployment settings.
  const config = modules.config.configSchema.parse({ NODE_ENV: 'development' });
  // The gateway's platform: route paths are written in its router's syntax.
  const app = await NestFactory.create(
    modules.appModule.AppModule.forRoot(config) as never,
    new FastifyAdapter(),
    {
      preview: true,
      logger: false,
      abortOnError: false,
    },
  );
  const document = SwaggerModule.createDocument(app, modules.http.openApiConfig());
  await app.close();
  process.stdout.write(JSON.stringify(document));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `openapi: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
