import type { ServiceAppOptions } from '@rollout/platform/service-kit';
import { AppModule } from './app.module';
import type { Config } from './config';
import { configureHttp } from './configure-http';

export function gatewayApp(config: Config): ServiceAppOptions & { config: Config } {
  return {
    name: 'gateway',
    config,
    module: AppModule.forRoot(config),
    rpc: false,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    ownBodyParsers: true,
    configureHttp,
  };
}
