import { INestApplication, ValidationPipe } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { BUILD_VERSION } from '@rollout/service-kit';

/** The public HTTP surface: strict validation and the OpenAPI document at /docs. */
export function configureHttp(app: INestApplication): void {
  app.useGlobalPipes(
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
  );
  const document = SwaggerModule.createDocument(app, openApiConfig());
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/openapi.json' });
}

export function openApiConfig() {
  return new DocumentBuilder()
    .setTitle('Policy rollout API')
    .setDescription(
      'Preview, commit and enforce policy changes safely. Errors follow google.rpc.Status (AIP-193): ' +
        '`{"error": {"code", "status", "message", "details"}}`.',
    )
    .setVersion(BUILD_VERSION)
    .build();
}
