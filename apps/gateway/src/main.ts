import 'reflect-metadata';
import { loadConfigOrExit } from '@rollout/platform/config';
import { runService } from '@rollout/platform/service-kit';
import { configSchema } from './config';
import { gatewayApp } from './gateway-app';

void runService(gatewayApp(loadConfigOrExit('gateway', configSchema)));
