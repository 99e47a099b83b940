import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/config';
import { runService } from '@rollout/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';
import { configureHttp } from './http/configure-http';

const config = loadConfigOrExit('gateway', configSchema);
void runService({ name: 'gateway', config, module: AppModule.forRoot(config), rpc: false, configureHttp });
