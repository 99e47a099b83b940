import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/platform/config';
import { runService } from '@rollout/platform/service-kit';
import { AppModule } from './app.module';
import { configSchema } from './config';

const config = loadConfigOrExit('budget-adapter', configSchema);
// No NestJS request/reply: the adapter serves adapter.v1 itself (plain JSON, see adapter-server.ts).
void runService({ name: 'budget-adapter', config, module: AppModule.forRoot(config), rpc: false });
