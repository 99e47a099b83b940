#!/usr/bin/env node
/**
 * `rollout-traffic import` (docs/importers.md). Exit 0: every line imported or deliberately
 * skipped; 1: some lines were bad; 2: the import could not run.
 */
import { RESOURCE_ID } from '@rollout/contracts';
import { LOCAL_INSTANCE_FILE, readLocalInstance } from '@rollout/platform/config';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { extname, join } from 'node:path';
import { FORMAT_NAMES } from './formats';
import { defaultPositionsFile } from './positions';
import { EXIT_FAILED, fail, runImport } from './run-import';

/** Its NATS and namespace are the defaults, so the import command the demo and README print reaches it. */
const localInstance = readLocalInstance(
  join(
    __dirname,
    ...(extname(__filename) === '.js' ? ['..', '..', '..', '..'] : ['..', '..', '..']),
  ),
);

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
    `NATS server(s), comma-separated (NATS_USER, NATS_PASSWORD, NATS_TOKEN authenticate; default: NATS_URL, else the one of the instance npm start runs, from ${LOCAL_INSTANCE_FILE})`,
    process.env.NATS_URL ?? localInstance?.natsUrl ?? 'nats://127.0.0.1:4222',
  )
  .option(
    '--namespace <prefix>',
    `subject prefix of an isolated deployment (default: NATS_NAMESPACE, else the one of the instance npm start runs, from ${LOCAL_INSTANCE_FILE})`,
    process.env.NATS_NAMESPACE ?? (localInstance?.namespace || undefined),
  )
  .option(
    '--no-check',
    'publish without first checking that each target policy is live (its events would be dead-lettered)',
  )
  .option('--dry-run', 'parse, route and count per policy, publishing nothing', false)
  .option(
    '--positions <file>',
    'where each file stands, so that importing it again publishes only its new lines',
    defaultPositionsFile(),
  )
  .option(
    '--reset-positions',
    "forget the inputs' positions: read every file from its start",
    false,
  )
  .option('--json', 'print the summary as one JSON object', false)
  .option('--no-progress', 'no progress line on a terminal')
  .action(runImport);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT_FAILED);
  fail(error instanceof Error ? (error.stack ?? error.message) : String(error));
});
