import { inboxPrefixOf } from '@rollout/platform/nats';
import { NatsConnection, connect } from 'nats';
import type { FormatName } from './formats';
import { ImportFailed, ImportSummary, emptySummary, importFlows } from './importer';
import { IdKeyError, idKeyFileBeside, loadIdKey } from './id-key';
import { InputError, resolveInputs } from './inputs';
import { PolicyCheckError, checkPolicies, unknownPolicyMessage } from './policy-check';
import { PolicyRoute, PolicyRouteError, parsePolicyRoutes } from './policy-routes';
import { PositionStore, PositionsError } from './positions';
import { badLineCount, formatProgress, formatSummary } from './report';

export const EXIT_BAD_LINES = 1;
export const EXIT_FAILED = 2;

export interface ImportCommandOptions {
  format: FormatName;
  project: string;
  location: string;
  policy?: string;
  policyMap?: string;
  direction: 'INGRESS' | 'EGRESS';
  replay?: number;
  rate?: number;
  restamp: boolean;
  repeat: number;
  idSalt?: string;
  natsUrl: string;
  namespace?: string;
  check: boolean;
  dryRun: boolean;
  positions: string;
  resetPositions: boolean;
  json: boolean;
  progress: boolean;
}

export const fail = (message: string): never => {
  process.stderr.write(`rollout-traffic: ${message}\n`);
  process.exit(EXIT_FAILED);
};

const say = (line: string) => process.stderr.write(`rollout-traffic: ${line}\n`);

/** The same file sent elsewhere is new traffic. */
function positionTarget(options: ImportCommandOptions, routes: string[]): string {
  const { natsUrl, namespace, project, location, policy, format, idSalt } = options;
  return JSON.stringify({
    natsUrl,
    namespace: namespace ?? '',
    project,
    location,
    policy: policy ?? '',
    routes,
    format,
    idSalt: idSalt ?? '',
  });
}

function connectTo(options: ImportCommandOptions): Promise<NatsConnection> {
  return connect({
    servers: options.natsUrl.split(','),
    user: process.env.NATS_USER,
    pass: process.env.NATS_PASSWORD,
    token: process.env.NATS_TOKEN,
    // A traffic producer credential may subscribe only under its own inbox (docs/bus-security.md), where JetStream's acks arrive.
    inboxPrefix: process.env.NATS_USER ? inboxPrefixOf(process.env.NATS_USER) : undefined,
    name: 'rollout-traffic',
  }).catch((error: unknown) =>
    fail(
      `cannot reach NATS at ${options.natsUrl}: ${error instanceof Error ? error.message : String(error)}`,
    ),
  );
}

/** Its events would be dead-lettered otherwise. */
async function checkTargets(
  connection: NatsConnection,
  options: ImportCommandOptions,
  policies: string[],
): Promise<void> {
  const target = {
    namespace: options.namespace,
    project: options.project,
    location: options.location,
  };
  const check = await checkPolicies(connection, { ...target, policies }).catch((error: unknown) =>
    error instanceof PolicyCheckError
      ? fail(
          error.skippable
            ? `cannot check that the target policies exist: ${error.message}; --no-check skips the check`
            : error.message,
        )
      : Promise.reject(error),
  );
  if (check.missing.length > 0) {
    await connection.close();
    fail(unknownPolicyMessage(check, target));
  }
}

export async function runImport(paths: string[], options: ImportCommandOptions): Promise<void> {
  // Installed first, so an interrupt while connecting still ends with a summary.
  const aborting = new AbortController();
  process.once('SIGINT', () => aborting.abort());
  process.once('SIGTERM', () => aborting.abort());

  let routes: PolicyRoute[] = [];
  try {
    routes = options.policyMap ? parsePolicyRoutes(options.policyMap) : [];
  } catch (error) {
    if (error instanceof PolicyRouteError) fail(`--policy-map: ${error.message}`);
    throw error;
  }
  if (!options.policy && routes.length === 0)
    fail(
      'say which live policy the flows belong to: --policy <id>, --policy-map <cidr>=<id>,…, or both',
    );
  const inputs = await resolveInputs(paths).catch((error: unknown) =>
    fail(error instanceof InputError ? error.message : String(error)),
  );
  if (options.repeat > 1 && inputs.some((input) => input.name === '-'))
    fail('--repeat needs files: standard input cannot be read twice');

  const where = options.namespace
    ? `namespace ${options.namespace} (NATS_NAMESPACE / --namespace)`
    : 'no namespace (NATS_NAMESPACE unset)';
  say(
    `${options.dryRun ? 'dry run (nothing is published) against' : 'importing into'} NATS ${options.natsUrl}, ${where}, project ${options.project}, location ${options.location}`,
  );
  const policies = [
    ...new Set([...(options.policy ? [options.policy] : []), ...routes.map((r) => r.policy)]),
  ];
  const connection = options.dryRun && !options.check ? undefined : await connectTo(options);
  if (connection && options.check) await checkTargets(connection, options, policies);

  let positions: PositionStore | undefined;
  if (options.repeat > 1)
    say('--repeat: no positions are read or saved (every round is new traffic)');
  else if (inputs.some((input) => input.path)) {
    const target = positionTarget(
      options,
      routes.map((r) => `${r.cidr}=${r.policy}`),
    );
    positions = await PositionStore.open(options.positions, target, options.resetPositions).catch(
      (error: unknown) => fail(error instanceof PositionsError ? error.message : String(error)),
    );
    say(
      `positions: ${options.positions}${options.resetPositions ? ' (reset: every file from its start)' : ''}${options.dryRun ? ' (read, not saved: dry run)' : ''}`,
    );
  }
  if (inputs.some((input) => input.name === '-'))
    say('standard input keeps no position: all it sends is published, whatever was sent before');
  const idKeyFile = idKeyFileBeside(options.positions);
  // Like positions, a dry run or a --repeat import saves none (every round is new traffic anyway).
  const create = !options.dryRun && options.repeat === 1;
  const idKey = await loadIdKey(idKeyFile, { create }).catch((error: unknown) =>
    fail(error instanceof IdKeyError ? error.message : String(error)),
  );
  if (idKey.created)
    say(
      `event ids are keyed with a new secret of this installation, ${idKeyFile} (mode 0600): keep it with the positions`,
    );

  const summary: ImportSummary = emptySummary();
  const totalBytes = inputs.every((input) => input.size !== undefined)
    ? inputs.reduce((sum, input) => sum + (input.size ?? 0), 0) * options.repeat
    : undefined;
  const showProgress = options.progress && !options.json && process.stderr.isTTY === true;
  const started = Date.now();
  const progress = showProgress
    ? setInterval(() => {
        summary.elapsedMs = Date.now() - started;
        process.stderr.write(`\r${formatProgress(summary, totalBytes)}\x1b[K`);
      }, 250)
    : undefined;

  let failure: string | undefined;
  try {
    await importFlows(
      connection,
      {
        format: options.format,
        inputs,
        project: options.project,
        location: options.location,
        policy: options.policy,
        routes,
        defaultDirection: options.direction,
        speed: options.replay,
        ratePerSecond: options.rate,
        restamp: options.restamp,
        rounds: options.repeat,
        idSalt: options.idSalt,
        idKey: idKey.key,
        namespace: options.namespace,
        dryRun: options.dryRun,
        positions,
        signal: aborting.signal,
      },
      summary,
    );
  } catch (error) {
    if (error instanceof ImportFailed) failure = error.message;
    else if (error instanceof PositionsError) failure = error.message;
    else throw error;
  } finally {
    if (progress) {
      clearInterval(progress);
      process.stderr.write('\r\x1b[K');
    }
    await connection?.drain().catch(() => undefined);
  }

  if (options.json) process.stdout.write(`${JSON.stringify({ ...summary, failure })}\n`);
  else process.stdout.write(`${formatSummary(summary, inputs.length)}\n`);
  if (failure) fail(failure);
  process.exitCode = badLineCount(summary) > 0 ? EXIT_BAD_LINES : 0;
}
