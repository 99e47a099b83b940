#!/usr/bin/env node
/**
 * `rollout` (docs/rollout-cli.md). Exit codes as `terraform plan -detailed-exitcode`: 0 no change,
 * 1 error, 2 changes (or drift); 3 past a --max-… threshold; 4 submitted for review.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  Connection,
  Io,
  applyCommand,
  approveCommand,
  driftCommand,
  exportCommand,
  historyCommand,
  planCommand,
  rollbackCommand,
} from './commands';
import { CliError } from './gateway';
import { EXIT } from './plan-model';

function share(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(%?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('use a share such as 1% or 0.01.');
  const number = Number(match[1]) / (match[2] ? 100 : 1);
  if (number > 1) throw new InvalidArgumentError('a share is at most 100%.');
  return number;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('use a whole number (0 or more).');
  return Number(value);
}

/** `90s`, `5m`, `1h`. */
function duration(value: string): number {
  const match = /^(\d+)(s|m|h)$/.exec(value);
  if (!match) throw new InvalidArgumentError('use a duration such as 90s, 5m or 1h.');
  return Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
}

const env = process.env;

function connection(command: Command): Connection {
  const options = command.optsWithGlobals<{
    gateway: string;
    project?: string;
    location: string;
  }>();
  return {
    gateway: options.gateway,
    token: env.ROLLOUT_TOKEN ?? env.TOKEN,
    project: options.project,
    location: options.location,
    planKey: env.ROLLOUT_PLAN_KEY || undefined,
  };
}

function io(command: Command): Io {
  const { color } = command.optsWithGlobals<{ color: boolean }>();
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    colour: color && Boolean(process.stdout.isTTY) && !env.NO_COLOR,
    progress: (line) => {
      if (process.stderr.isTTY) process.stderr.write(`${line}\n`);
    },
  };
}

function run<A extends unknown[]>(
  body: (c: Connection, io: Io, ...args: A) => Promise<number>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    const out = io(command);
    try {
      process.exitCode = await body(connection(command), out, ...args);
    } catch (error) {
      const message =
        error instanceof CliError
          ? error.message
          : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
      out.err(`rollout: ${message}\n`);
      process.exitCode = EXIT.ERROR;
    }
  };
}

const outputOptions = (command: Command) =>
  command
    .addOption(
      new Option('--json', 'print the plan as JSON (plan-output.schema.json)').conflicts(
        'markdown',
      ),
    )
    .option('--markdown', 'print the plan as Markdown, for a pull-request comment');

const thresholdOptions = (command: Command) =>
  command
    .option(
      '--max-changed-share <share>',
      'exit 3 when more than this share of evaluated events changes verdict (1% or 0.01)',
      share,
    )
    .option(
      '--max-newly-denied-flows <n>',
      'exit 3 when more flows than this become denied',
      wholeNumber,
    )
    .option(
      '--max-newly-allowed-flows <n>',
      'exit 3 when more flows than this become allowed',
      wholeNumber,
    );

const program = new Command('rollout')
  .description(
    'Policy as code: export, plan against real traffic, apply the reviewed plan, find drift.',
  )
  .option(
    '--gateway <url>',
    'the gateway (ROLLOUT_GATEWAY_URL); the token is ROLLOUT_TOKEN',
    env.ROLLOUT_GATEWAY_URL ?? env.GATEWAY_URL ?? 'http://127.0.0.1:3000',
  )
  .option(
    '--project <id>',
    'the project, for a policy given by its id (ROLLOUT_PROJECT)',
    env.ROLLOUT_PROJECT,
  )
  .option(
    '--location <id>',
    'the location, for a policy given by its id',
    env.ROLLOUT_LOCATION ?? 'global',
  )
  .option('--no-color', 'no colour, even on a terminal')
  .exitOverride()
  .showHelpAfterError();

program
  .command('export')
  .description('Write the live policy as a normalised file (YAML, or JSON).')
  .argument('<policy>', 'projects/P/locations/L/firewallPolicies/ID, or the id with --project')
  .addOption(
    new Option('--format <format>', 'file format').choices(['yaml', 'json']).default('yaml'),
  )
  .option('-o, --output <file>', 'write to this file instead of standard output')
  .action(
    run((c, io, policy: string, options: { format: 'yaml' | 'json'; output?: string }) =>
      exportCommand(policy, options, c, io),
    ),
  );

thresholdOptions(
  outputOptions(
    program
      .command('plan')
      .description(
        'Diff the file against the live policy, backtest it over retained traffic, write a plan file. Exit 0 no change, 2 changes, 3 past a threshold, 1 error.',
      )
      .argument('<file>', 'a policy file (rollout export writes one)')
      .option('--policy <policy>', 'the live policy, when the file does not name it')
      .option(
        '--experiment <id>',
        'the experiment that holds the plan (made or updated)',
        'rollout',
      )
      .option('--preview <duration>', 'also preview live for this long (90s, 5m, 1h)', duration)
      .option('--out <file>', 'where to write the plan file', 'rollout.plan.json'),
  ),
).action(
  run((c, io, file: string, options: Parameters<typeof planCommand>[1] & { preview?: number }) =>
    planCommand(file, { ...options, previewMs: options.preview }, c, io),
  ),
);

program
  .command('apply')
  .description(
    'Commit exactly what a plan file planned (where the project requires review, propose it: exit 4); refused when the live policy, the experiment or the report moved since.',
  )
  .argument('<planfile>', 'the plan file rollout plan wrote')
  .option('--reason <text>', "why, recorded in the revision and the policy's history")
  .action(
    run((c, io, file: string, options: { reason?: string }) => applyCommand(file, options, c, io)),
  );

program
  .command('approve')
  .description(
    "Approve the commit another editor proposed with rollout apply (the project requires review): bound to the plan's versions and reportEtag. Exit 0 applied, 1 refused (the proposer's own approval, or anything moved).",
  )
  .argument('<planfile>', 'the plan file the proposal was made from')
  .action(run((c, io, file: string) => approveCommand(file, c, io)));

outputOptions(
  program
    .command('drift')
    .description('Compare the file with the live policy. Exit 0 no drift, 2 drift, 1 error.')
    .argument('<file>', 'a policy file')
    .option('--policy <policy>', 'the live policy, when the file does not name it'),
).action(
  run((c, io, file: string, options: { policy?: string; json?: boolean; markdown?: boolean }) =>
    driftCommand(file, options, c, io),
  ),
);

program
  .command('history')
  .description('Revisions of the live policy, newest first: actor, change, reason, request id.')
  .argument('<policy>', 'projects/P/locations/L/firewallPolicies/ID, or the id with --project')
  .option('--json', 'as JSON')
  .option('--limit <n>', 'at most this many revisions', wholeNumber, 20)
  .action(
    run((c, io, policy: string, options: { json?: boolean; limit: number }) =>
      historyCommand(policy, options, c, io),
    ),
  );

thresholdOptions(
  outputOptions(
    program
      .command('rollback')
      .description(
        "Make an older revision's rules live again; with --plan, plan it first as plan does (apply the plan file).",
      )
      .argument('<policy>', 'projects/P/locations/L/firewallPolicies/ID, or the id with --project')
      .requiredOption('--to <revision>', 'the revision whose rules become live again', (v) =>
        String(wholeNumber(v)),
      )
      .option(
        '--plan',
        'plan the rollback (diff, backtest) and write a plan file instead of rolling back',
      )
      .option('--experiment <id>', 'the experiment that previews the rollback', 'rollout-rollback')
      .option('--out <file>', 'where to write the plan file', 'rollout.plan.json')
      .option('--reason <text>', "why, recorded in the revision and the policy's history"),
  ),
).action(
  run((c, io, policy: string, options: Parameters<typeof rollbackCommand>[1]) =>
    rollbackCommand(policy, options, c, io),
  ),
);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.OK : EXIT.ERROR);
  process.stderr.write(`rollout: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(EXIT.ERROR);
});
