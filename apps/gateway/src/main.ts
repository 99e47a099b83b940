import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/config';
import { runService } from '@rollout/service-kit';
import { configSchema } from './config';
import { gatewayApp } from './gateway-app';

void runService(gatewayApp(loadConfigOrExit('gateway', configSchema)));
