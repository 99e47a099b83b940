import { freePort } from '@rollout/testing/kit';
import { openDataSource } from '@rollout/platform/postgres';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { startEmbeddedPostgres } from './postgres';
import type { StartedDependency } from './processes';

/** A CA, and a server certificate it signs for `localhost` only (openssl, as an operator would). */
function makeCertificates(dir: string, name: string): { ca: string; cert: string; key: string } {
  const path = (file: string) => join(dir, `${name}-${file}`);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name} CA`,
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.crt'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
  );
  writeFileSync(path('san.ext'), 'subjectAltName=DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.crt'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    path('san.ext'),
    '-out',
    path('server.crt'),
  );
  return { ca: path('ca.crt'), cert: path('server.crt'), key: path('server.key') };
}

/**
 * DATABASE_SSL_MODE against a real Postgres that speaks TLS (an embedded one, with a CA of this
 * run): verify-full connects only to the server its CA signed, under the name in its certificate.
 */
describe('TLS to Postgres', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-tls-it-'));
  chmodSync(dir, 0o755); // the server (the postgres user, when we are root) reads its files here
  const ours = makeCertificates(dir, 'ours');
  const stranger = makeCertificates(dir, 'stranger');
  let server: StartedDependency;
  let port: number;
  const opened: DataSource[] = [];

  beforeAll(async () => {
    // Postgres reads its key only if it is the key's owner and nobody else may read it.
    if (process.getuid?.() === 0) {
      const [uid, gid] = ['-u', '-g'].map((flag) =>
        Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' })),
      );
      chownSync(ours.key, uid, gid);
    }
    chmodSync(ours.key, 0o600);
    port = await freePort();
    server = await startEmbeddedPostgres('127.0.0.1', port, 'postgres', {
      log: () => undefined,
      stopTimeoutMs: 5_000,
      settings: { ssl: 'on', ssl_cert_file: ours.cert, ssl_key_file: ours.key },
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(opened.map((d) => d.destroy()));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (host: string, tls: Parameters<typeof openDataSource>[0]['tls']) =>
    openDataSource({
      url: `postgres://postgres@${host}:${port}/postgres`,
      schema: 'public',
      poolSize: 2,
      applicationName: 'tls-test',
      migrations: [],
      tls,
    }).then((source) => {
      opened.push(source);
      return source;
    });
  const encrypted = async (source: DataSource) =>
    (
      (await source.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')) as {
        ssl: boolean;
      }[]
    )[0].ssl;

  it('connects with verify-full to the server its CA signed, by the name in its certificate', async () => {
    const source = await open('localhost', { mode: 'verify-full', rootCert: ours.ca });
    expect(await encrypted(source)).toBe(true);
  });

  it('refuses a server that another CA signed', async () => {
    await expect(open('localhost', { mode: 'verify-full', rootCert: stranger.ca })).rejects.toThrow(
      /cannot connect to Postgres at .*: (Error: )?unable to verify the first certificate/,
    );
  });

  it('refuses a server reached under a name its certificate does not hold', async () => {
    await expect(open('127.0.0.1', { mode: 'verify-full', rootCert: ours.ca })).rejects.toThrow(
      /cannot connect to Postgres at .*: Hostname\/IP does not match certificate's altnames/,
    );
  });

  it('connects with verify-ca to the server its CA signed under any name, and refuses another CA', async () => {
    const source = await open('127.0.0.1', { mode: 'verify-ca', rootCert: ours.ca });
    expect(await encrypted(source)).toBe(true);
    await expect(open('127.0.0.1', { mode: 'verify-ca', rootCert: stranger.ca })).rejects.toThrow(
      /cannot connect to Postgres at .*: (Error: )?unable to verify the first certificate/,
    );
  });

  it('encrypts without verifying under require, and speaks plain TCP when disabled', async () => {
    expect(await encrypted(await open('127.0.0.1', { mode: 'require' }))).toBe(true);
    expect(await encrypted(await open('127.0.0.1', { mode: 'disable' }))).toBe(false);
  });
});
