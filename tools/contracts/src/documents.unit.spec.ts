import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ASYNCAPI_FILE, OPENAPI_FILE, REPO_ROOT } from './paths';
import { validateAsyncApi } from './validate-asyncapi';

/**
 * What the generic linters of `npm run contracts:lint-docs` (redocly, the AsyncAPI parser)
 * cannot know: every route and subject carries its major, every package's subjects are
 * documented; and that the AsyncAPI validation refuses what it should.
 */
const read = (path: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as Record<string, unknown>;
const asyncapi = read(ASYNCAPI_FILE);
const openapi = read(OPENAPI_FILE);

describe('generated AsyncAPI document', () => {
  it('passes the AsyncAPI validation with no error', async () => {
    expect(await validateAsyncApi(REPO_ROOT)).toMatchObject({ errors: 0 });
  });

  it('fails that validation when a message payload is not a schema, naming where', async () => {
    const broken = structuredClone(asyncapi) as {
      channels: Record<string, { publish?: { message: unknown } }>;
    };
    broken.channels['experiment.v1.policies.create'].publish!.message = {
      payload: { type: 'nope' },
    };
    const root = mkdtempSync(join(tmpdir(), 'asyncapi-'));
    mkdirSync(dirname(join(root, ASYNCAPI_FILE)), { recursive: true });
    writeFileSync(join(root, ASYNCAPI_FILE), JSON.stringify(broken));

    const result = await validateAsyncApi(root);

    expect(result.errors).toBeGreaterThan(0);
    expect(result.lines).toContainEqual(
      expect.stringMatching(
        /^error asyncapi2-schemas: .* at channels\.experiment\.v1\.policies\.create\.publish\.message\.payload\.type$/,
      ),
    );
  });

  it('puts the major in every subject and describes every package subject', () => {
    const channels = Object.keys(asyncapi.channels as object);
    // A KV bucket's subjects are `$KV.<bucket>.<key>`: there the key starts with the major.
    expect(
      channels.filter(
        (channel) => !/^(\$KV\.[A-Z_]+\.)?[a-z-]+\.v\d+(alpha\d*|beta\d*)?\./.test(channel),
      ),
    ).toEqual([]);
    expect(channels).toEqual(
      expect.arrayContaining(['experiment.v1.policies.create', 'system.v1.{service}.info']),
    );
  });
});

describe('generated OpenAPI document', () => {
  it('is OpenAPI 3 with a version and every route under a major', () => {
    const paths = Object.keys(openapi.paths as object);
    expect(openapi.openapi).toMatch(/^3\./);
    expect((openapi.info as { version?: string }).version).toMatch(/^\d+\.\d+\.\d+/);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => !/^\/v\d+(alpha\d*|beta\d*)?\//.test(path))).toEqual([]);
  });
});
