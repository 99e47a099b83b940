import {
  appendFile,
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { NatsNamespace } from '@rollout/platform/nats';
import { TEST_NATS_URL, uniqueName } from '@rollout/testing/kit';
import { NatsConnection, connect } from 'nats';
import {
  declareImporterBus,
  eventsOn,
  putLivePolicies,
  removeImporterBus,
  runCli,
} from '../test/importer-world';

/**
 * Positions against the real JetStream: importing a file again, however long after, never
 * publishes what it already published (not only within TRAFFIC's duplicate window, which these
 * imports never reach: each new import here finds the earlier events' ids still in the window,
 * so a republish would show as "already in the stream", and none does); a file that grew
 * publishes its new lines only; a position is saved only for what the server acknowledged.
 */
const HEADER = [
  '#separator \\x09',
  '#unset_field\t-',
  '#path\tconn',
  '#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto',
];
const line = (n: number) =>
  `1591367999.${String(n).padStart(6, '0')}\tC${n}\t203.0.113.9\t${40000 + n}\t192.168.4.1\t443\ttcp`;
const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => line(from + i));

// Each import is a process of its own (about 2 s to start from the sources).
jest.setTimeout(120_000);

describe('rollout-traffic import: positions', () => {
  let nc: NatsConnection;
  let dir: string;
  const namespace = uniqueName('imp-pos');
  const ns = new NatsNamespace(namespace);
  const positionsFile = () => join(dir, 'positions.json');
  const importInto = (policy: string, path: string, ...extra: string[]) =>
    importWith(positionsFile(), policy, path, ...extra);
  const importWith = (positions: string, policy: string, path: string, ...extra: string[]) =>
    runCli(
      [
        '--format',
        'zeek',
        '--project',
        'acme',
        '--policy',
        policy,
        '--positions',
        positions,
        ...extra,
        path,
      ],
      { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: namespace },
    );
  const ports = async (policy: string) =>
    (await eventsOn(nc, ns, policy)).map((event) => event.srcPort! - 40000);

  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_URL });
    await declareImporterBus(nc, ns);
    await putLivePolicies(nc, ns, 'acme', ['grow', 'other', 'gz', 'refused', 'salted']);
    dir = await mkdtemp(join(tmpdir(), 'traffic-positions-'));
  });

  afterAll(async () => {
    await removeImporterBus(nc, ns);
    await nc.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('publishes a file once, then only the lines it grew by; a copy is the same file; a reset reads it all again', async () => {
    const path = join(dir, 'conn.log');
    await writeFile(path, `${[...HEADER, ...lines(1, 3)].join('\n')}\n`);
    const first = await importInto('grow', path);
    expect(first.stdout).toContain('3 events published, 0 already in the stream');
    expect(first.stderr).toContain(`positions: ${positionsFile()}`);

    const again = await importInto('grow', path);
    expect(again.stdout).toMatch(
      /^0 lines from 1 input in [\d.]+ s: 0 events published, 0 already in the stream/,
    );
    expect(again.stdout).toContain(
      'not read again: 7 lines an earlier import published (positions)',
    );

    await appendFile(path, `${lines(4, 5).join('\n')}\n`);
    const grown = await importInto('grow', path);
    expect(grown.stdout).toContain('2 events published, 0 already in the stream');
    // Line numbers go on from where the file stood.
    await appendFile(path, 'not a record\n');
    const bad = await importInto('grow', path);
    expect(bad.stdout).toContain(`${path}:10: wrong_field_count`);

    // Renamed or copied, it is the same file (by content, not by name or inode).
    const copy = join(dir, 'conn.copy.log');
    await copyFile(path, copy);
    expect((await importInto('grow', copy)).stdout).toContain(
      '0 events published, 0 already in the stream',
    );
    expect(await ports('grow')).toEqual([1, 2, 3, 4, 5]);

    // Another destination has positions of its own; --reset-positions reads the file again.
    expect((await importInto('other', path)).stdout).toContain('5 events published');
    const reset = await importInto('grow', path, '--reset-positions');
    expect(reset.stdout).toContain('0 events published, 5 already in the stream');
    const saved = JSON.parse(await readFile(positionsFile(), 'utf8'));
    const mine = saved.entries.filter(
      (entry: { name: string; target: string }) =>
        entry.name === path && entry.target.includes('"policy":"grow"'),
    );
    expect(mine).toHaveLength(1);
  });

  it("salts event ids with a secret key of the installation, kept beside its positions (0600): its own re-imports deduplicate, another installation's ids differ", async () => {
    const path = join(dir, 'salted.log');
    await writeFile(path, `${[...HEADER, ...lines(11, 13)].join('\n')}\n`);
    expect((await importInto('salted', path)).stdout).toContain('3 events published');
    const key = join(dir, 'id-key');
    expect((await stat(key)).mode & 0o777).toBe(0o600);
    expect(await readFile(key, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    // Imported again by this installation (positions reset), within the duplicate window: the same ids.
    expect((await importInto('salted', path, '--reset-positions')).stdout).toContain(
      '0 events published, 3 already in the stream',
    );
    // By another installation (its own positions and key): other ids, so a producer who guesses
    // a record cannot squat its id without the key.
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(elsewhere);
    const other = await importWith(join(elsewhere, 'positions.json'), 'salted', path);
    expect(other.stdout).toContain('3 events published, 0 already in the stream');
    expect(await readFile(join(elsewhere, 'id-key'), 'utf8')).not.toBe(await readFile(key, 'utf8'));
    expect(await ports('salted')).toEqual([11, 12, 13, 11, 12, 13]);
  });

  it('refuses a key file others may read, and a dry run makes no key', async () => {
    const path = join(dir, 'dry.log');
    await writeFile(path, `${[...HEADER, ...lines(21, 21)].join('\n')}\n`);
    const fresh = join(dir, 'fresh');
    await mkdir(fresh);
    const dry = await importWith(join(fresh, 'positions.json'), 'salted', path, '--dry-run');
    expect(dry.code).toBe(0);
    await expect(stat(join(fresh, 'id-key'))).rejects.toMatchObject({ code: 'ENOENT' });

    const open = join(dir, 'open');
    await mkdir(open);
    await writeFile(join(open, 'id-key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
    const refused = await importWith(join(open, 'positions.json'), 'salted', path);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `the event id key ${join(open, 'id-key')} may be read by others (mode 644): chmod 600 it`,
    );
  });

  it('resumes a gzip file by its decompressed offset', async () => {
    const path = join(dir, 'conn.01.log.gz');
    await writeFile(path, gzipSync(`${[...HEADER, ...lines(1, 4)].join('\n')}\n`));
    expect((await importInto('gz', path)).stdout).toContain('4 events published');
    expect((await importInto('gz', path)).stdout).toContain('0 events published, 0 already');
    // A gzip file that grew by another member (as `cat more.gz >> file.gz` makes it).
    await appendFile(path, gzipSync(`${lines(5, 6).join('\n')}\n`));
    expect((await importInto('gz', path)).stdout).toContain('2 events published, 0 already');
    expect(await ports('gz')).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('saves no position past what the server did not acknowledge', async () => {
    const path = join(dir, 'refused.log');
    await writeFile(path, `${[...HEADER, ...lines(1, 2)].join('\n')}\n`);
    // No TRAFFIC stream in that namespace: JetStream refuses, the import stops.
    const refused = await runCli(
      [
        '--format',
        'zeek',
        '--project',
        'acme',
        '--policy',
        'refused',
        '--positions',
        positionsFile(),
        '--no-check',
        path,
      ],
      { NATS_URL: TEST_NATS_URL, NATS_NAMESPACE: uniqueName('none') },
    );
    expect(refused.code).toBe(2);
    // At most its header (4 lines, published nowhere) is behind it, never a record.
    const saved = JSON.parse(await readFile(positionsFile(), 'utf8'));
    const entries = saved.entries.filter((entry: { name: string }) => entry.name === path);
    expect(entries.map((entry: { lines: number }) => entry.lines <= HEADER.length)).toEqual(
      entries.map(() => true),
    );
    // Where the stream exists, the file is then published whole.
    expect((await importInto('refused', path)).stdout).toContain('2 events published');
  });
});
