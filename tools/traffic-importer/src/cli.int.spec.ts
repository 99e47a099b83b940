import { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPERIMENT_STATE_BUCKET, policyStateKey } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, eventually, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import {
  declareImporterBus,
  eventsOn,
  finished,
  putLivePolicies,
  removeImporterBus,
  runCli,
  startCli,
} from '../test/importer-world';

/**
 * The command against the real JetStream: it checks that the target policies are live before
 * publishing, dry-runs, reads only conn.log from a Zeek day directory, says once that a gcloud
 * JSON array is not JSON lines, and stops on Ctrl-C while its standard input is quiet.
 */
const ZEEK_HEADER = (path: string) => [
  '#separator \\x09',
  '#unset_field\t-',
  `#path\t${path}`,
  '#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto',
];
const zeekLine = (n: number, destIp = '192.168.4.1', port = 443) =>
  `1591367999.${String(n).padStart(6, '0')}\tC${n}\t203.0.113.9\t${40000 + n}\t${destIp}\t${port}\ttcp`;

// Each import is a process of its own (about 2 s to start from the sources).
jest.setTimeout(120_000);

describe('rollout-traffic import, the command', () => {
  let nc: NatsConnection;
  let dir: string;
  const namespace = uniqueName('imc');
  const ns = new NatsNamespace(namespace);
  const started: ChildProcess[] = [];
  const cli = (args: string[], stdin = '') => runCli(args, env(), stdin);
  const env = () => ({
    NATS_URL: TEST_NATS_URL,
    NATS_NAMESPACE: namespace,
    XDG_STATE_HOME: join(dir, 'state'),
  });

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    await declareImporterBus(nc, ns);
    await putLivePolicies(nc, ns, 'acme', ['edge', 'lan', 'dns-servers', 'stdin', 'gone']);
    // A policy deleted since: its key holds a delete marker, as the state relay leaves it.
    const kv = await nc.jetstream().views.kv(ns.bucket(EXPERIMENT_STATE_BUCKET));
    await kv.delete(policyStateKey('acme', 'global', 'gone'));
    dir = await mkdtemp(join(tmpdir(), 'traffic-cli-'));
  });

  afterAll(async () => {
    // An importer that ignored the interrupt would outlive its failed test.
    for (const child of started)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await removeImporterBus(nc, ns);
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('says where an import goes, and refuses a project or policy that is not live, naming it, publishing nothing', async () => {
    const line = `${[...ZEEK_HEADER('conn'), zeekLine(1)].join('\n')}\n`;
    const typo = await cli(
      ['--format', 'zeek', '--project', 'nosuch1', '--policy', 'nosuchpolicy', '-'],
      line,
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`NATS ${TEST_NATS_URL}, namespace ${namespace}`);
    expect(typo.stderr).toContain(
      'project "nosuch1" (location global) has no live policy "nosuchpolicy"',
    );
    expect(typo.stderr).toContain('It has no live policy there');
    expect(typo.stdout).not.toContain('events published');
    expect(await eventsOn(nc, ns, 'nosuchpolicy', 'nosuch1')).toEqual([]);

    // In a project that exists: the live policies are listed; a deleted one is not live.
    const mapped = await cli(
      [
        '--format',
        'zeek',
        '--project',
        'acme',
        '--policy',
        'edgee',
        '--policy-map',
        '10.0.0.0/8=gone',
        '-',
      ],
      line,
    );
    expect(mapped.code).toBe(2);
    expect(mapped.stderr).toContain('has no live policy "edgee", "gone"');
    expect(mapped.stderr).toContain('Its live policies there: dns-servers, edge, lan, stdin.');
    expect(await eventsOn(nc, ns, 'edgee')).toEqual([]);

    const unchecked = await cli(
      ['--format', 'zeek', '--project', 'acme', '--policy', 'edgee', '--no-check', '-'],
      line,
    );
    expect(unchecked.code).toBe(0);
    expect(await eventsOn(nc, ns, 'edgee')).toHaveLength(1);
  });

  it('in a namespace with no system, says which namespace it tried and where the policy is live instead', async () => {
    const line = `${[...ZEEK_HEADER('conn'), zeekLine(2)].join('\n')}\n`;
    const elsewhere = uniqueName('imc_other');
    const wrong = await runCli(
      ['--format', 'zeek', '--project', 'acme', '--policy', 'edge', '-'],
      { ...env(), NATS_NAMESPACE: elsewhere },
      line,
    );
    expect(wrong.code).toBe(2);
    const said = wrong.stderr.trim().split('\n').pop();
    expect(said).toContain(`tried namespace "${elsewhere}" (--namespace / NATS_NAMESPACE)`);
    expect(said).toContain(`there is no state bucket (stream KV_${elsewhere}_EXPERIMENT_STATE)`);
    expect(said).toContain(`the live policy acme/global/edge is under namespace "${namespace}"`);
    expect(said).toContain('nothing was published');
    expect(said).not.toContain('--no-check');
  });

  it('reads only conn.log of a Zeek day directory, counting the other logs as skipped by log', async () => {
    const day = join(dir, 'zeek-day');
    await mkdir(day);
    await writeFile(
      join(day, 'conn.log'),
      `${[...ZEEK_HEADER('conn'), zeekLine(1), zeekLine(2)].join('\n')}\n`,
    );
    await writeFile(
      join(day, 'dns.log'),
      `${[...ZEEK_HEADER('dns'), zeekLine(3, '192.168.4.1', 53), zeekLine(4, '192.168.4.1', 53)].join('\n')}\n`,
    );
    await writeFile(join(day, 'ssl.log'), `${[...ZEEK_HEADER('ssl'), zeekLine(5)].join('\n')}\n`);

    const run = await cli(['--format', 'zeek', '--project', 'acme', '--policy', 'edge', day]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 events published');
    expect(run.stdout).toContain('dns_log 2, ssl_log 1');
    expect((await eventsOn(nc, ns, 'edge')).map((event) => event.srcPort)).toEqual([40001, 40002]);
  });

  it('dry-runs: parses, routes and counts per policy, publishes nothing', async () => {
    const path = join(dir, 'dry.log');
    await writeFile(
      path,
      `${[...ZEEK_HEADER('conn'), zeekLine(1, '192.168.4.1', 53), zeekLine(2, '192.168.7.7'), zeekLine(3, '192.168.7.8'), zeekLine(4, '10.9.9.9')].join('\n')}\n`,
    );
    const run = await cli([
      '--format',
      'zeek',
      '--project',
      'acme',
      '--policy-map',
      '192.168.4.1/32=dns-servers,192.168.0.0/16=lan',
      '--dry-run',
      path,
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('dry run (nothing is published)');
    expect(run.stdout.split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(
        /^8 lines from 1 input in [\d.]+ s: dry run, nothing published: 3 events would be published$/,
      ),
      '  by policy: lan 2, dns-servers 1',
    ]);
    expect(run.stdout).toContain('no_policy_for_destination 1');
    expect(await eventsOn(nc, ns, 'lan')).toEqual([]);
    expect(await eventsOn(nc, ns, 'dns-servers')).toEqual([]);

    // A dry run saves no position: the real import then publishes everything.
    const real = await cli([
      '--format',
      'zeek',
      '--project',
      'acme',
      '--policy-map',
      '192.168.4.1/32=dns-servers,192.168.0.0/16=lan',
      path,
    ]);
    expect(real.stdout).toContain('3 events published');
  });

  it('says once that a gcloud JSON array is not JSON lines, with how to convert it', async () => {
    const entry = (n: number) => ({
      jsonPayload: {
        connection: {
          src_ip: '10.128.0.2',
          src_port: n,
          dest_ip: '10.128.0.3',
          dest_port: 443,
          protocol: 6,
        },
        reporter: 'SRC',
        start_time: '2023-01-31T20:05:16.803425012Z',
      },
      timestamp: '2023-01-31T20:05:41.539512452Z',
    });
    const path = join(dir, 'gcloud.json');
    await writeFile(
      path,
      JSON.stringify(
        Array.from({ length: 237 }, (_, n) => entry(n)),
        null,
        2,
      ),
    );
    const run = await cli(['--format', 'gcp-vpc', '--project', 'acme', '--policy', 'edge', path]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('bad lines: 1 (json_array 1)');
    expect(run.stdout).toContain(
      `${path}:1: json_array: the input is one JSON array (as \`gcloud logging read --format=json\` writes)`,
    );
    expect(run.stdout).toContain(
      "jq -c '.[]' <file> | npx rollout-traffic import --format gcp-vpc",
    );
    expect(run.stdout).not.toContain('undefined');
  });

  it('stops on Ctrl-C while standard input is quiet, after what was sent is acknowledged, and prints the summary', async () => {
    const child = startCli(
      ['--format', 'zeek', '--project', 'acme', '--policy', 'stdin', '-'],
      env(),
    );
    started.push(child);
    const result = finished(child);
    // One record, then a pipe that stays open and says nothing.
    child.stdin.write(`${[...ZEEK_HEADER('conn'), zeekLine(1)].join('\n')}\n`);
    await eventually(
      async () => ((await eventsOn(nc, ns, 'stdin')).length === 1 ? true : undefined),
      {
        what: 'the first event stored',
      },
    );
    child.kill('SIGINT');
    const run = await result;
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^5 lines from 1 input in [\d.]+ s: 1 events published/);
    expect(run.stderr).toContain('standard input keeps no position');
  });
});
