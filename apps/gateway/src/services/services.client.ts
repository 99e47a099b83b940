import { Injectable } from '@nestjs/common';
import {
  BACKEND_SERVICES,
  BackendService,
  ListServicesResponse,
  SYSTEM_V1,
  ServiceInfo,
  START_TIME_FEATURE,
  ServiceStatus,
  StatusError,
  serviceInfoSubject,
} from '@rollout/contracts';
import {
  BUILD_VERSION,
  PROCESS_START_TIME,
  describeContracts,
} from '@rollout/platform/service-kit';
import { BackendClient } from '../http/backend-client';
import { currentHttpClient } from '../http/client-context';

function isBackendService(name: string): name is BackendService {
  return (BACKEND_SERVICES as readonly string[]).includes(name);
}

@Injectable()
export class ServicesClient {
  constructor(private readonly backend: BackendClient) {}

  /** One that does not answer is listed with the reason; `startTime` only for clients declaring that feature. */
  async list(requestId?: string): Promise<ListServicesResponse> {
    const gateway: ServiceStatus = {
      name: 'gateway',
      state: 'SERVING',
      version: BUILD_VERSION,
      contracts: describeContracts([SYSTEM_V1]),
      ...(currentHttpClient()?.features.includes(START_TIME_FEATURE)
        ? { startTime: PROCESS_START_TIME }
        : {}),
    };
    const backends = await Promise.all(
      BACKEND_SERVICES.map(async (name): Promise<ServiceStatus> => {
        try {
          return { ...(await this.get(name, requestId)), state: 'SERVING' };
        } catch (error) {
          const state = error instanceof StatusError ? error.status : 'INTERNAL';
          return {
            name,
            state: state === 'UNAVAILABLE' || state === 'DEADLINE_EXCEEDED' ? state : 'INTERNAL',
          };
        }
      }),
    );
    return { services: [gateway, ...backends] };
  }

  /** One service; its failure is the caller's error (503 when it is down). */
  get(name: string, requestId?: string): Promise<ServiceInfo> {
    if (!isBackendService(name)) {
      throw StatusError.withReason('NOT_FOUND', `No service named "${name}".`, 'UNKNOWN_SERVICE', {
        service: name,
      });
    }
    return this.backend.call<ServiceInfo>(serviceInfoSubject(name), {}, requestId);
  }
}
