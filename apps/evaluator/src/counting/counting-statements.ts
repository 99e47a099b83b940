import type { ConfigurationBatch } from '@rollout/domain/preview';

/** One configuration's part of a batch, with the configuration's row id. */
export interface ConfigurationEntry {
  batch: ConfigurationBatch;
  id: number;
}
