import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import {
  EnforcementConfig,
  EnforcementConfigError,
  parseEnforcementConfig,
} from '@rollout/domain/enforcement';
import { Stats, readFileSync, unwatchFile, watchFile } from 'node:fs';
import { Config, ENFORCEMENT_SERVICE_CONFIG } from './config';
import { parse } from 'yaml';

export const ENFORCEMENT_CONFIG = Symbol('ENFORCEMENT_CONFIG');

export function loadEnforcementConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { refuseEmpty?: boolean } = {},
): EnforcementConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'no such file'
        : (error as Error).message;
    throw new EnforcementConfigError(`ENFORCEMENT_CONFIG_FILE: cannot read ${path}: ${reason}`);
  }
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw new EnforcementConfigError(
      `ENFORCEMENT_CONFIG_FILE: ${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  if (options.refuseEmpty && (document === null || document === undefined))
    throw new EnforcementConfigError(
      `ENFORCEMENT_CONFIG_FILE: ${path} is empty (a write in progress?); write the chain, or enabled_filters: [] for none`,
    );
  try {
    return parseEnforcementConfig(document, env);
  } catch (error) {
    if (error instanceof EnforcementConfigError) {
      throw new EnforcementConfigError(
        error.message.replace(
          /^invalid enforcement config: /,
          `invalid enforcement config in ${path}: `,
        ),
      );
    }
    throw error;
  }
}

/** For main.ts: exits before anything connects. */
export function loadEnforcementConfigOrExit(service: string, path: string): EnforcementConfig {
  try {
    return loadEnforcementConfig(path);
  } catch (error) {
    if (error instanceof EnforcementConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** Polling follows a Kubernetes ConfigMap's symlink swap too; an invalid or empty file changes nothing. */
@Injectable()
export class EnforcementConfigSource implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EnforcementConfig');
  private config: EnforcementConfig;
  private readonly listeners: ((config: EnforcementConfig) => Promise<void>)[] = [];
  private reloading: Promise<void> = Promise.resolve();
  private readonly onSighup = () => void this.reload('SIGHUP');
  private readonly onFileChange = (current: Stats, previous: Stats) => {
    if (
      current.mtimeMs !== previous.mtimeMs ||
      current.size !== previous.size ||
      current.ino !== previous.ino
    )
      void this.reload('file change');
  };

  constructor(
    @Inject(ENFORCEMENT_CONFIG) initial: EnforcementConfig,
    @Inject(ENFORCEMENT_SERVICE_CONFIG) private readonly settings: Config,
  ) {
    this.config = initial;
  }

  get current(): EnforcementConfig {
    return this.config;
  }

  onChange(listener: (config: EnforcementConfig) => Promise<void>): void {
    this.listeners.push(listener);
  }

  onApplicationBootstrap(): void {
    process.on('SIGHUP', this.onSighup);
    watchFile(
      this.settings.ENFORCEMENT_CONFIG_FILE,
      { interval: this.settings.ENFORCEMENT_CONFIG_WATCH_INTERVAL_MS, persistent: false },
      this.onFileChange,
    );
  }

  onApplicationShutdown(): void {
    process.off('SIGHUP', this.onSighup);
    unwatchFile(this.settings.ENFORCEMENT_CONFIG_FILE, this.onFileChange);
  }

  reload(why: string): Promise<void> {
    this.reloading = this.reloading.then(async () => {
      let next: EnforcementConfig;
      try {
        // A file rewritten in place may be read empty: that would drop every adapter handler until the next read.
        next = loadEnforcementConfig(this.settings.ENFORCEMENT_CONFIG_FILE, process.env, {
          refuseEmpty: true,
        });
      } catch (error) {
        this.logger.error(
          { why, reason: (error as Error).message },
          'enforcement config not reloaded; the running chain stays',
        );
        return;
      }
      for (const listener of this.listeners) {
        try {
          await listener(next);
        } catch (error) {
          this.logger.error({ err: error, why }, 'applying the reloaded enforcement config failed');
        }
      }
      this.config = next;
      this.logger.log({ why, filters: next.enabledFilters }, 'enforcement config reloaded');
    });
    return this.reloading;
  }
}
