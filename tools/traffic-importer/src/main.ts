#!/usr/bin/env node
/**
 * `rollout-traffic import`: publishes flow logs (AWS and Google Cloud VPC flow logs, Zeek
 * conn.log, Hubble flows, conntrack) as traffic.v1 events. See docs/importers.md. Exit code 0:
 * every line was imported or deliberately skipped; 1: some lines were bad; 2: the import could
 * not run (bad options, unreadable input, NATS unreachable or refusing the events).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { inboxPrefixOf } from '@rollout/platform/nats';
import { connect } from 'nats';
import { FORMAT_NAMES, FormatName } from './formats';
import { ImportFailed, ImportOptions, ImportSummary, emptySummary, importFlows } from './importer';
import { InputError, resolveInputs } from './inputs';
import { PolicyRouteError, RESOURCE_ID, parsePolicyRoutes } from './policy-routes';
import { badLineCount, formatProgress, formatSummary } from './report';

const EXIT_BAD_LINES = 1;
const EXIT_FAILED = 2;

function resourceId(what: string) {
  return (value: string) => {
    if (!RESOURCE_ID.test(value))
      throw new InvalidArgumentError(
        `${what} ids are lower-case letters, digits and hyphens, starting with a letter.`,
      );
    return value;
  };
}

function positive(what: string) {
  return (value: string) => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0)
      throw new InvalidArgumentError(`${what} must be a positive number.`);
    return number;
  };
}

function direction(value: string): 'INGRESS' | 'EGRESS' {
  const upper = value.toUpperCase();
  if (upper !== 'INGRESS' && upper !== 'EGRESS')
    throw new InvalidArgumentError('use ingress or egress.');
  return upper;
}

/** `fast` (no waiting), `original` (1×) or `<N>x`. */
function replaySpeed(value: string): number | undefined {
  if (value === 'fast') return undefined;
  if (value === 'original') return 1;
  const match = /^(\d+(?:\.\d+)?)x$/.exec(value);
  if (!match || Number(match[1]) <= 0)
    throw new InvalidArgumentError('use fast, original or a speed such as 10x.');
  return Number(match[1]);
}

interface ImportCommandOptions {
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
  json: boolean;
  progress: boolean;
}

const fail = (message: string): never => {
  process.stderr.write(`rollout-traffic: ${message}\n`);
  process.exit(EXIT_FAILED);
};

async function runImport(paths: string[], options: ImportCommandOptions): Promise<void> {
  // Installed first, so an interrupt while connecting still ends with a summary.
  const aborting = new AbortController();
  process.once('SIGINT', () => aborting.abort());
  process.once('SIGTERM', () => aborting.abort());

  let routes: ImportOptions['routes'] = [];
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

  const connection = await connect({
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
        namespace: options.namespace,
        signal: aborting.signal,
      },
      summary,
    );
  } catch (error) {
    if (!(error instanceof ImportFailed)) throw error;
    failure = error.message;
  } finally {
    if (progress) {
      clearInterval(progress);
      process.stderr.write('\r\x1b[K');
    }
    await connection.drain().catch(() => undefined);
  }

  if (options.json) process.stdout.write(`${JSON.stringify({ ...summary, failure })}\n`);
  else process.stdout.write(`${formatSummary(summary, inputs.length)}\n`);
  if (failure) fail(failure);
  process.exitCode = badLineCount(summary) > 0 ? EXIT_BAD_LINES : 0;
}

const program = new Command('rollout-traffic')
  .description(
    'Publish flow logs to policy rollout as traffic.v1 events, for previews against real traffic.',
  )
  .exitOverride();

program
  .command('import')
  .description(
    'Import flow records from files, directories (every file in them), gzip files, or standard input (-).',
  )
  .argument('<inputs...>', 'files, directories, or - for standard input')
  .addOption(
    new Option('-f, --format <format>', 'the flow log format')
      .choices(FORMAT_NAMES)
      .makeOptionMandatory(),
  )
  .requiredOption('--project <id>', 'project of the live policy', resourceId('project'))
  .option('--location <id>', 'location of the live policy', resourceId('location'), 'global')
  .option(
    '--policy <id>',
    'the live policy the flows belong to (those --policy-map does not place)',
    resourceId('policy'),
  )
  .option(
    '--policy-map <routes>',
    'live policy by destination CIDR, longest prefix first: 10.0.0.0/8=web,2001:db8::/32=web-v6',
  )
  .option(
    '--direction <direction>',
    'direction of records whose format does not say: ingress or egress',
    direction,
    'INGRESS',
  )
  .option(
    '--replay <speed>',
    "fast (as fast as possible), original (the records' own timing) or Nx (N times faster)",
    replaySpeed,
  )
  .option('--rate <events>', 'at most this many events per second', positive('--rate'))
  .option('--restamp', "give every event the time it is published instead of its record's", false)
  .option(
    '--repeat <n>',
    'read the inputs n times (rounds after the first are new events)',
    (value) => Math.round(positive('--repeat')(value)),
    1,
  )
  .option(
    '--id-salt <text>',
    'mixed into every event id: the same records imported again with another salt are new traffic',
  )
  .option(
    '--nats-url <urls>',
    'NATS server(s), comma-separated (NATS_USER, NATS_PASSWORD, NATS_TOKEN authenticate)',
    process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  )
  .option(
    '--namespace <prefix>',
    'subject prefix of an isolated deployment (NATS_NAMESPACE)',
    process.env.NATS_NAMESPACE,
  )
  .option('--json', 'print the summary as one JSON object', false)
  .option('--no-progress', 'no progress line on a terminal')
  .action(runImport);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT_FAILED);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
