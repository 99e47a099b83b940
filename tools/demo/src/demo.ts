import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type PreviewReport, formatPolicies } from '@rollout/contracts';
import {
  DEMO_EXPERIMENT,
  DEMO_LOCATION,
  DEMO_POLICY,
  DEMO_PROJECT,
  EXPERIMENT_PATH,
  EXPERIMENT_RULES,
  LIVE_RULES,
  POLICY_NAME,
  POLICY_PATH,
  SAMPLE_FLOW_LOG,
  configurationOf,
  reportLine,
  whereToLook,
} from './scenario';
import { disagreement } from './same-system';

export { SAMPLE_FLOW_LOG } from './scenario';

export interface DemoOptions {
  gateway: string;
  token: string;
  natsUrl: string;
  natsUser?: { user: string; password: string };
  namespace?: string;
  seconds: number;
  ratePerSecond: number;
  /** The built importer and the bundled flow log are found from here. */
  root: string;
  say: (line: string) => void;
}

export class DemoError extends Error {}

const IMPORTER = join('dist', 'tools', 'traffic-importer', 'src', 'main.js');
const REPORT_EVERY_MS = 10_000;
const FIRST_TRAFFIC_TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every round of the bundled flow log is new traffic, stamped now; resolves with the last report. */
export async function runDemo(options: DemoOptions): Promise<PreviewReport> {
  const { say } = options;
  const api = gatewayClient(options.gateway, options.token);

  // Before anything changes: traffic sent where the gateway's services do not listen is lost.
  const problem = await disagreement(options, (path) => api('GET', path));
  if (problem) throw new DemoError(`${problem}; nothing was changed`);

  const existing = await api('GET', POLICY_PATH);
  if (existing.status === 200) {
    await api('DELETE', `${POLICY_PATH}?etag=${encodeURIComponent(String(existing.body.etag))}`);
    say(
      `Replaced the live policy ${DEMO_POLICY} of project ${DEMO_PROJECT} from an earlier demo (its experiments went with it).`,
    );
  }
  const live = await api(
    'POST',
    `/v1/${formatPolicies({ project: DEMO_PROJECT, location: DEMO_LOCATION })}?firewallPolicyId=${DEMO_POLICY}`,
    {
      displayName: 'Web tier edge',
      description: 'Created by npm run demo',
      rules: LIVE_RULES,
    },
  );
  say(
    `Created the live policy ${POLICY_NAME}: ${LIVE_RULES.length} rules (web from anywhere, SSH from the VPN and, legacy, from anywhere, Postgres from 10.20.0.0/16, DNS).`,
  );
  // A copy of the whole live resource with the rules changed: a commit replaces all of it.
  const { displayName, description } = live.body as { displayName?: string; description?: string };
  await api('POST', `${POLICY_PATH}/experiments?experimentId=${DEMO_EXPERIMENT}`, {
    firewallPolicy: { displayName, description, rules: EXPERIMENT_RULES },
    annotations: {
      ticket: 'DEMO-1',
      why: 'security review: no SSH from the internet, Postgres from the app subnet only',
    },
  });
  const started = await api('POST', `${EXPERIMENT_PATH}:startPreview`);
  const etag = String((started.body.response as { etag?: string } | undefined)?.etag);
  const evaluated = async () => configurationOf(await report(api), etag)?.evaluated ?? 0;
  // An earlier demo's experiment of the same name may have left counts under this version.
  const before = await evaluated();
  say(
    `Created the experiment ${DEMO_EXPERIMENT} (drops SSH from anywhere, narrows Postgres to 10.20.1.0/24) and started its preview.`,
  );

  const importer = startImporter(options);
  say(
    `Streaming ${SAMPLE_FLOW_LOG} (Zeek conn.log) through rollout-traffic import at ${options.ratePerSecond} events/s for ${options.seconds} s…`,
  );
  const imported = importerSummary(importer);
  // The countdown starts once traffic is evaluated, so a slow start does not eat the stream.
  const firstTrafficBy = Date.now() + FIRST_TRAFFIC_TIMEOUT_MS;
  while ((await evaluated()) <= before) {
    if (importer.exitCode !== null || Date.now() > firstTrafficBy) {
      importer.kill('SIGINT');
      const { failure } = await imported.catch((error: Error) => ({ failure: error.message }));
      throw new DemoError(
        failure ??
          `no traffic was evaluated within ${FIRST_TRAFFIC_TIMEOUT_MS / 1000} s: is the evaluator running?`,
      );
    }
    await sleep(500);
  }
  const streamUntil = Date.now() + options.seconds * 1000;
  while (Date.now() < streamUntil && importer.exitCode === null) {
    await sleep(Math.min(REPORT_EVERY_MS, streamUntil - Date.now()));
    say(`  ${reportLine(configurationOf(await report(api), etag))}`);
  }
  importer.kill('SIGINT');
  const { published, duplicates, failure } = await imported;
  if (failure) throw new DemoError(`the importer stopped: ${failure}`);
  const events = published + duplicates;
  say(`The importer published ${events.toLocaleString('en-US')} events.`);

  // The evaluator counts what is on the stream within moments; wait for it, briefly.
  let last = await report(api);
  for (
    let waited = 0;
    (configurationOf(last, etag)?.evaluated ?? 0) < before + events && waited < 10_000;
    waited += 500
  ) {
    await sleep(500);
    last = await report(api);
  }
  say('');
  say(`Preview of ${DEMO_EXPERIMENT}: ${reportLine(configurationOf(last, etag))}.`);
  for (const line of whereToLook({
    gateway: options.gateway,
    token: options.token,
    experimentEtag: etag,
  }))
    say(line);
  return last;
}

type Api = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: Record<string, unknown> }>;

function gatewayClient(gateway: string, token: string): Api {
  return async (method, path, body) => {
    let response: Response;
    try {
      response = await fetch(`${gateway}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'user-agent': 'rollout-demo/0.1.0',
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new DemoError(
        `nothing answers at ${gateway}: start the system first (npm start), or set GATEWAY_URL`,
      );
    }
    const answer = {
      status: response.status,
      body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
    };
    if (response.status === 401)
      throw new DemoError(
        `the gateway refused the token (401): set TOKEN to the one npm start printed`,
      );
    // A GET may find nothing (404); any other call must succeed.
    if (!response.ok && !(method === 'GET' && response.status === 404)) {
      const error = answer.body.error as { message?: string } | undefined;
      throw new DemoError(
        `${method} ${path} answered ${response.status}: ${error?.message ?? JSON.stringify(answer.body)}`,
      );
    }
    return answer;
  };
}

async function report(api: Api): Promise<PreviewReport> {
  const { status, body } = await api('GET', `${EXPERIMENT_PATH}/previewReport`);
  return status === 200 ? (body as unknown as PreviewReport) : { name: '', configurations: [] };
}

function startImporter(options: DemoOptions): ChildProcess {
  const args = [
    join(options.root, IMPORTER),
    'import',
    '--format',
    'zeek',
    '--project',
    DEMO_PROJECT,
    '--location',
    DEMO_LOCATION,
    '--policy',
    DEMO_POLICY,
    '--restamp',
    '--rate',
    String(options.ratePerSecond),
    '--repeat',
    '100000',
    '--json',
    // Every demo run is new traffic, even within JetStream's duplicate window of the last one.
    '--id-salt',
    `demo-${Date.now()}`,
    '--nats-url',
    options.natsUrl,
    ...(options.namespace ? ['--namespace', options.namespace] : []),
    join(options.root, SAMPLE_FLOW_LOG),
  ];
  const credentials = options.natsUser
    ? { NATS_USER: options.natsUser.user, NATS_PASSWORD: options.natsUser.password }
    : {};
  return spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...credentials },
  });
}

function importerSummary(
  importer: ChildProcess,
): Promise<{ published: number; duplicates: number; failure?: string }> {
  let stdout = '';
  let stderr = '';
  importer.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  importer.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    importer.on('error', (error) =>
      reject(new DemoError(`cannot run the importer: ${error.message}`)),
    );
    importer.on('close', () => {
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? ''));
      } catch {
        reject(
          new DemoError(`the importer failed: ${stderr.trim() || stdout.trim() || 'no output'}`),
        );
      }
    });
  });
}
