import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { connect, NatsConnection } from 'nats';
import { parse, stringify } from 'yaml';
import { RunningSystem, launch } from '@rollout/launcher';
import { TrafficEvent, trafficSubject } from '@rollout/contracts';
import { NatsNamespace } from '@rollout/platform/nats';
import { JsonBody, TEST_NATS_URL, eventually, freePorts } from '@rollout/testing/kit';
import { DIST, gatewayApi, isolatedSettings, removeRun } from './support';

/**
 * `rollout`, the pipeline's command line, against the built system started as `npm start`
 * starts it: export → edit → plan (exit 2, the impact the backtest's report says over HTTP) →
 * apply → drift (exit 0) → a concurrent change → the stale plan refused (exit 1, nothing
 * changed) → a rollback planned and applied. A project that requires review: apply proposes,
 * another editor approves. Then what a hostile or unlucky pipeline meets.
 */
const POLICY = 'projects/acme/locations/global/firewallPolicies/edge';
/** The pipeline (admin), and a second editor of the project that requires review. */
const PIPELINE_TOKEN = 'rollout-e2e-pipeline';
const REVIEWER_TOKEN = 'rollout-e2e-reviewer';
const apiKey = (name: string, token: string, roles: string[], projects: string[] | '*') => ({
  name,
  sha256: createHash('sha256').update(token).digest('hex'),
  roles,
  projects,
});
const API_KEYS = [
  apiKey('pipeline', PIPELINE_TOKEN, ['admin'], '*'),
  apiKey('reviewer', REVIEWER_TOKEN, ['editor'], ['secure']),
];
const SCHEMA = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'tools', 'rollout', 'plan-output.schema.json'), 'utf8'),
) as object;
const validate = new Ajv({ allErrors: true, validateFormats: false }).compile(SCHEMA);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** SSH from three sources (allowed live, denied once port 22 closes), HTTPS, and DNS denied by both. */
const event = (n: number): TrafficEvent => {
  const kind = n % 6;
  const base = {
    id: `rollout-${n}`,
    time: new Date(Date.now() - n * 1000).toISOString(),
    direction: 'INGRESS' as const,
    destIp: '10.0.0.5',
    srcPort: 40_000 + n,
  };
  if (kind < 3) return { ...base, srcIp: `198.51.100.${kind + 1}`, protocol: 'tcp', destPort: 22 };
  if (kind < 5) return { ...base, srcIp: '203.0.113.9', protocol: 'tcp', destPort: 443 };
  return { ...base, srcIp: '203.0.113.9', protocol: 'udp', destPort: 53 };
};
const EVENTS = 60;
const SSH_EVENTS = 30;

describe('rollout, the command line', () => {
  let system: RunningSystem;
  let database: string;
  let nc: NatsConnection;
  let dir: string;
  let api: ReturnType<typeof gatewayApi>;
  let namespace: string;

  const rollout = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [join(DIST, 'tools', 'rollout', 'src', 'main.js'), ...args],
        {
          cwd: dir,
          env: {
            ...process.env,
            ROLLOUT_GATEWAY_URL: system.urls.gateway,
            ROLLOUT_TOKEN: PIPELINE_TOKEN,
            ...env,
          },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const file = (name: string) => join(dir, name);
  const livePolicy = async () => (await api('GET', `/v1/${POLICY}`)).body;

  beforeAll(async () => {
    const isolated = await isolatedSettings();
    database = isolated.database;
    namespace = isolated.namespace;
    system = await launch({
      settings: isolated.settings,
      distRoot: DIST,
      extraEnv: {
        NATS_NAMESPACE: isolated.namespace,
        LOG_LEVEL: 'silent',
        AUTH_API_KEYS: JSON.stringify(API_KEYS),
      },
      log: () => undefined,
    });
    api = gatewayApi(system, PIPELINE_TOKEN);
    dir = mkdtempSync(join(tmpdir(), 'rollout-e2e-'));
    const created = await api(
      'POST',
      '/v1/projects/acme/locations/global/firewallPolicies?firewallPolicyId=edge',
      {
        displayName: 'edge',
        rules: [
          {
            priority: 100,
            direction: 'INGRESS',
            action: 'allow',
            match: {
              srcIpRanges: ['0.0.0.0/0'],
              layer4Configs: [{ ipProtocol: 'tcp', ports: ['443', '22'] }],
            },
          },
        ],
      },
    );
    expect(created.status).toBe(200);
    nc = await connect({ servers: TEST_NATS_URL });
    const subject = new NatsNamespace(isolated.namespace).subject(
      trafficSubject('acme', 'global', 'edge'),
    );
    const js = nc.jetstream();
    await Promise.all(
      Array.from({ length: EVENTS }, (_, n) => event(n)).map((e) =>
        js.publish(subject, JSON.stringify(e), { msgID: e.id }),
      ),
    );
  }, 120_000);

  afterAll(async () => {
    await nc?.close();
    await system?.stop();
    if (database) await removeRun(database);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('plans against real traffic, applies exactly the plan, refuses a stale one, and plans and applies a rollback', async () => {
    // Export, and the exported file plans as no change.
    const exported = await rollout(['export', POLICY, '-o', 'edge.yaml']);
    expect(exported).toMatchObject({ code: 0 });
    const same = await rollout(['plan', 'edge.yaml', '--out', 'none.plan.json']);
    expect({ code: same.code, stderr: same.stderr }).toEqual({ code: 0, stderr: '' });
    expect(same.stdout).toContain('No changes: the live policy is already this.');

    // Edit: close SSH on rule 100, deny it explicitly at 200.
    const policy = parse(readFileSync(file('edge.yaml'), 'utf8')) as {
      rules: { priority: number; match: { layer4Configs: { ports: string[] }[] } }[];
    };
    policy.rules[0].match.layer4Configs[0].ports = ['443'];
    policy.rules.push({
      priority: 200,
      direction: 'INGRESS',
      action: 'deny',
      match: { srcIpRanges: ['0.0.0.0/0'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
    } as never);
    writeFileSync(file('edge.yaml'), stringify(policy));

    // Plan: exit 2, its JSON as its schema says, its impact the backtest's report read over HTTP.
    const planned = await rollout(['plan', 'edge.yaml', '--json', '--out', 'edge.plan.json']);
    expect({ code: planned.code, stderr: planned.stderr }).toEqual({ code: 2, stderr: '' });
    const model = JSON.parse(planned.stdout) as Record<string, JsonBody>;
    expect(validate(model) ? [] : validate.errors).toEqual([]);
    const [impact] = model.impact;
    const operation = await api('GET', `/v1/${impact.operation}`);
    const [configuration] = operation.body.response.report.configurations;
    expect(impact).toMatchObject({
      source: 'backtest',
      evaluated: configuration.evaluated,
      changed: configuration.changed,
      allowToDeny: configuration.allowToDeny,
      denyToAllow: configuration.denyToAllow,
      listedFlows: operation.body.response.topChangedFlows.length,
    });
    expect(impact).toMatchObject({
      evaluated: EVENTS,
      allowToDeny: SSH_EVENTS,
      denyToAllow: 0,
      newlyDeniedFlows: 3,
    });
    expect(impact.byPort).toEqual([
      { key: 'tcp/22', allowToDeny: SSH_EVENTS, denyToAllow: 0, flows: 3 },
    ]);
    expect(model.semantic.nowDenied.join(' ')).toContain('tcp/22');
    expect(model.diff.summary).toEqual({
      rulesAdded: 1,
      rulesChanged: 1,
      rulesRemoved: 0,
      policyFieldsChanged: 0,
    });

    // The same plan as Markdown and text: the same model, said for people.
    const markdown = await rollout(['plan', 'edge.yaml', '--markdown', '--out', 'md.plan.json']);
    const text = await rollout(['plan', 'edge.yaml', '--out', 'edge.plan.json']);
    for (const output of [markdown, text]) {
      expect(output.code).toBe(2);
      expect(output.stdout).toContain(
        `${EVENTS} events evaluated, ${SSH_EVENTS} change verdict (50.00%): ${SSH_EVENTS} allow→deny, 0 deny→allow`,
      );
      expect(output.stdout).toContain(model.semantic.nowDenied[0]);
      expect(output.stdout).toContain('1 rule(s) to add, 1 to change, 0 to remove (0 unchanged).');
    }
    expect(markdown.stdout).toContain('```diff');
    expect(text.stdout).not.toContain('\x1b['); // not a terminal: no colour

    // A threshold turns the impact into its own exit code.
    const strict = await rollout([
      'plan',
      'edge.yaml',
      '--max-newly-denied-flows',
      '0',
      '--out',
      'strict.plan.json',
    ]);
    expect(strict.code).toBe(3);

    // Apply the reviewed plan: live becomes the file; drift finds nothing.
    const applied = await rollout(['apply', 'edge.plan.json']);
    expect({ code: applied.code, stderr: applied.stderr }).toEqual({ code: 0, stderr: '' });
    expect(applied.stdout).toContain(`Applied ${POLICY}/experiments/rollout to ${POLICY}`);
    expect(await rollout(['drift', 'edge.yaml'])).toMatchObject({ code: 0 });

    // A plan made, then a concurrent change: the stale plan is refused and changes nothing.
    writeFileSync(
      file('edge.yaml'),
      readFileSync(file('edge.yaml'), 'utf8').replace(
        'displayName: edge',
        'displayName: edge tier',
      ),
    );
    expect((await rollout(['plan', 'edge.yaml', '--out', 'stale.plan.json'])).code).toBe(2);
    const before = await livePolicy();
    const patched = await api('PATCH', `/v1/${POLICY}?updateMask=description`, {
      description: 'changed by hand',
      etag: before.etag,
    });
    expect(patched.status).toBe(200);
    const afterConcurrent = await livePolicy();
    const stale = await rollout(['apply', 'stale.plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'the service refused the plan, nothing changed: ABORTED (HTTP 409)',
    );
    expect(stale.stderr).toContain(
      `the live policy moved from etag ${before.etag} to ${afterConcurrent.etag}`,
    );
    expect(stale.stderr.trim().split('\n')).toHaveLength(1);
    expect(await livePolicy()).toEqual(afterConcurrent);
    const drift = await rollout(['drift', 'edge.yaml', '--json']);
    expect(drift.code).toBe(2);
    expect(JSON.parse(drift.stdout).diff.fields.map((f: { field: string }) => f.field)).toEqual([
      'displayName',
      'description',
    ]);

    // History: every revision with its actor, kind and request id.
    const history = await rollout(['history', POLICY, '--json']);
    const revisions = JSON.parse(history.stdout).revisions as {
      revisionId: string;
      source: { kind: string };
      requestId?: string;
    }[];
    expect(revisions.map((r) => r.source.kind)).toEqual(['update', 'commit', 'create']);
    expect(revisions.every((r) => r.requestId)).toBe(true);

    // Roll back to revision 1, planned first: SSH opens again on the replayed traffic.
    const rollbackPlan = await rollout([
      'rollback',
      'edge',
      '--project',
      'acme',
      '--to',
      '1',
      '--plan',
      '--json',
      '--out',
      'rollback.plan.json',
    ]);
    expect({ code: rollbackPlan.code, stderr: rollbackPlan.stderr }).toEqual({
      code: 2,
      stderr: '',
    });
    const rollbackModel = JSON.parse(rollbackPlan.stdout) as Record<string, JsonBody>;
    expect(validate(rollbackModel) ? [] : validate.errors).toEqual([]);
    expect(rollbackModel.impact[0]).toMatchObject({ allowToDeny: 0, denyToAllow: SSH_EVENTS });
    const rolledBack = await rollout(['apply', 'rollback.plan.json']);
    expect({ code: rolledBack.code, stderr: rolledBack.stderr }).toEqual({ code: 0, stderr: '' });
    const revision1 = (await api('GET', `/v1/${POLICY}/revisions/1`)).body;
    const now = await livePolicy();
    // The whole resource of revision 1, as the plan's diff said: the hand-made description goes.
    expect(rollbackModel.diff.fields.map((f: { field: string }) => f.field)).toEqual([
      'description',
    ]);
    expect(now).toMatchObject({ displayName: revision1.displayName, rules: revision1.rules });
    expect(now.description).toBe(revision1.description);
    const afterRollback = JSON.parse(
      (await rollout(['history', POLICY, '--json'])).stdout,
    ).revisions;
    expect(afterRollback[0].source).toMatchObject({ kind: 'rollback', rolledBackTo: '1' });
  }, 240_000);

  it('previews live when asked: the live impact, the gates as the service judges them, the reportEtag bound; a direct rollback', async () => {
    const WEB = 'projects/acme/locations/global/firewallPolicies/web';
    const rules = [
      {
        priority: 100,
        direction: 'INGRESS',
        action: 'allow',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
        },
      },
    ];
    expect(
      (
        await api(
          'POST',
          '/v1/projects/acme/locations/global/firewallPolicies?firewallPolicyId=web',
          { rules },
        )
      ).status,
    ).toBe(200);
    // The experiment plan updates keeps its gates: the service judges them on the preview.
    const gated = await api('POST', `/v1/${WEB}/experiments?experimentId=rollout`, {
      firewallPolicy: { rules },
      readinessGates: [{ minEvaluated: 6 }],
    });
    expect(gated.status).toBe(200);
    expect((await rollout(['export', WEB, '-o', 'web.yaml'])).code).toBe(0);
    writeFileSync(
      file('web.yaml'),
      readFileSync(file('web.yaml'), 'utf8').replace(/^ *- "22"\n/m, ''),
    );

    const planning = rollout([
      'plan',
      'web.yaml',
      '--preview',
      '8s',
      '--json',
      '--out',
      'web.plan.json',
    ]);
    // Traffic once the evaluator applies the preview: what the live preview counts.
    await eventually(
      async () =>
        (await api('GET', `/v1/${WEB}/experiments/rollout/previewReport`)).body.previewAppliedTime
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 100, what: 'the preview applied' },
    );
    const subject = new NatsNamespace(namespace).subject(trafficSubject('acme', 'global', 'web'));
    await Promise.all(
      Array.from({ length: 12 }, (_, n) => ({ ...event(n), id: `web-${n}` })).map((e) =>
        nc.jetstream().publish(subject, JSON.stringify(e), { msgID: e.id }),
      ),
    );
    const planned = await planning;
    expect({ code: planned.code, stderr: planned.stderr }).toEqual({ code: 2, stderr: '' });
    const model = JSON.parse(planned.stdout) as Record<string, JsonBody>;
    expect(validate(model) ? [] : validate.errors).toEqual([]);
    expect(model.impact.map((i: { source: string }) => i.source)).toEqual(['backtest', 'preview']);
    expect(model.impact[1]).toMatchObject({
      evaluated: 12,
      allowToDeny: 6,
      denyToAllow: 0,
      newlyDeniedFlows: 3,
      flowsComplete: true,
    });
    expect(model.readiness).toMatchObject({
      ready: true,
      gates: [{ kind: 'minEvaluated', holds: true }],
    });
    const sealed = JSON.parse(readFileSync(file('web.plan.json'), 'utf8'));
    expect(sealed.body.reportEtag).toBe(model.readiness.reportEtag);

    const applied = await rollout(['apply', 'web.plan.json', '--reason', 'close SSH (SEC-42)']);
    expect(applied.code).toBe(0);
    const [newest] = JSON.parse((await rollout(['history', WEB, '--json'])).stdout).revisions;
    expect(applied.stderr).toBe('');
    expect(newest.source).toMatchObject({
      kind: 'commit',
      reportEtag: model.readiness.reportEtag,
      reason: 'close SSH (SEC-42)',
    });

    const direct = await rollout(['rollback', 'web', '--project', 'acme', '--to', '1']);
    expect(direct.code).toBe(0);
    expect(direct.stdout).toContain(`Rolled ${WEB} back to revision 1`);
    expect((await api('GET', `/v1/${WEB}`)).body.rules).toEqual(
      (await api('GET', `/v1/${WEB}/revisions/1`)).body.rules,
    );
  }, 120_000);

  it('where the project requires review: apply proposes (exit 4), the proposer cannot approve, another editor approves', async () => {
    const SECURE = 'projects/secure/locations/global/firewallPolicies/edge';
    const EXPERIMENT = `${SECURE}/experiments/rollout`;
    const secure = async () => (await api('GET', `/v1/${SECURE}`)).body;
    const rules = [
      {
        priority: 100,
        direction: 'INGRESS',
        action: 'allow',
        match: {
          srcIpRanges: ['0.0.0.0/0'],
          layer4Configs: [{ ipProtocol: 'tcp', ports: ['22', '443'] }],
        },
      },
    ];
    const created = await api(
      'POST',
      '/v1/projects/secure/locations/global/firewallPolicies?firewallPolicyId=edge',
      { displayName: 'edge', rules },
    );
    expect(created.status).toBe(200);
    const subject = new NatsNamespace(namespace).subject(
      trafficSubject('secure', 'global', 'edge'),
    );
    await Promise.all(
      Array.from({ length: 12 }, (_, n) => ({ ...event(n), id: `secure-${n}` })).map((e) =>
        nc.jetstream().publish(subject, JSON.stringify(e), { msgID: e.id }),
      ),
    );
    const settings = await api('PATCH', '/v1/projects/secure/settings', {
      requireCommitReview: true,
    });
    expect(settings.body).toMatchObject({ requireCommitReview: true });

    expect((await rollout(['export', SECURE, '-o', 'secure.yaml'])).code).toBe(0);
    writeFileSync(
      file('secure.yaml'),
      readFileSync(file('secure.yaml'), 'utf8').replace(/^ *- "22"\n/m, ''),
    );
    const planned = await rollout(['plan', 'secure.yaml', '--json', '--out', 'secure.plan.json']);
    expect({ code: planned.code, stderr: planned.stderr }).toEqual({ code: 2, stderr: '' });
    const model = JSON.parse(planned.stdout) as Record<string, JsonBody>;
    const before = await secure();

    // Apply proposes exactly the plan, with its reason: exit 4, nothing live yet.
    const reason = 'SEC-42: no SSH from the internet';
    const proposed = await rollout(['apply', 'secure.plan.json', '--reason', reason]);
    expect({ code: proposed.code, stderr: proposed.stderr }).toEqual({ code: 4, stderr: '' });
    expect(proposed.stdout).toBe(
      `Submitted for review as the commit proposal of ${EXPERIMENT} (etag ${model.experiment.etag}) by pipeline; another editor approves with \`rollout approve secure.plan.json\`. Nothing is live yet.\n`,
    );
    expect(await secure()).toEqual(before);
    expect((await api('GET', `/v1/${EXPERIMENT}`)).body.commitProposal).toMatchObject({
      experimentEtag: model.experiment.etag,
      proposer: 'pipeline',
      reason,
      reportEtag: model.readiness.reportEtag,
    });

    // The proposer's own approval: one line, exit 1, nothing changed.
    const self = await rollout(['approve', 'secure.plan.json']);
    expect(self).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'rollout: the service refused the approval, nothing changed: PERMISSION_DENIED (HTTP 403): The proposer of a commit cannot approve it: another editor must.\n',
    });
    expect(await secure()).toEqual(before);

    // Another editor approves the plan they read: live, with the reason, proposer and approver.
    const approved = await rollout(['approve', 'secure.plan.json'], {
      ROLLOUT_TOKEN: REVIEWER_TOKEN,
    });
    expect({ code: approved.code, stderr: approved.stderr }).toEqual({ code: 0, stderr: '' });
    const after = await secure();
    expect(approved.stdout).toBe(
      `Approved and applied ${EXPERIMENT} to ${SECURE}, proposed by pipeline (${JSON.stringify(reason)}): the live policy's etag is now ${after.etag}.\n`,
    );
    expect(after.etag).not.toBe(before.etag);
    expect(await rollout(['drift', 'secure.yaml'])).toMatchObject({ code: 0 });
    const [revision] = (await api('GET', `/v1/${SECURE}/revisions?pageSize=1`)).body.revisions;
    expect(revision).toMatchObject({
      actor: 'reviewer',
      etag: after.etag,
      source: {
        kind: 'commit',
        experimentEtag: model.experiment.etag,
        reportEtag: model.readiness.reportEtag,
        reason,
        review: { proposer: 'pipeline', approver: 'reviewer' },
      },
    });
    const history = await rollout(['history', SECURE]);
    expect(history.stdout).toContain('commit of rollout, proposed by pipeline');

    // A proposal whose live policy moved before the approval: refused, saying what moved.
    writeFileSync(
      file('secure.yaml'),
      readFileSync(file('secure.yaml'), 'utf8').replace(/^displayName: .*$/m, 'displayName: tier'),
    );
    expect((await rollout(['plan', 'secure.yaml', '--out', 'moved.plan.json'])).code).toBe(2);
    expect((await rollout(['apply', 'moved.plan.json'])).code).toBe(4);
    const patched = await api('PATCH', `/v1/${SECURE}?updateMask=description`, {
      description: 'changed by hand',
      etag: after.etag,
    });
    expect(patched.status).toBe(200);
    const handEdited = await secure();
    const moved = await rollout(['approve', 'moved.plan.json'], { ROLLOUT_TOKEN: REVIEWER_TOKEN });
    expect(moved.code).toBe(1);
    expect(moved.stderr.trim().split('\n')).toHaveLength(1);
    expect(moved.stderr).toContain('rollout: the service refused the approval, nothing changed: ');
    expect(moved.stderr).toContain(
      `the live policy moved from etag ${after.etag} to ${handEdited.etag}`,
    );
    expect(await secure()).toEqual(handEdited);
  }, 180_000);

  it('refuses hostile input and an unreachable gateway with one clear line and exit 1, changing nothing', async () => {
    const before = await livePolicy();
    const oneLine = (run: Run) => {
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      return run.stderr.trim();
    };
    writeFileSync(file('deployment.yaml'), 'apiVersion: apps/v1\nkind: Deployment\n');
    expect(oneLine(await rollout(['plan', 'deployment.yaml']))).toContain(
      'deployment.yaml is not a firewall policy',
    );
    writeFileSync(
      file('typo.yaml'),
      `kind: FirewallPolicy\nname: ${POLICY}\nrules:\n  - { priority: 1, direction: INGRESS, action: deny, match: { srcIPRanges: [10.0.0.0/8] } }\n`,
    );
    expect(oneLine(await rollout(['plan', 'typo.yaml']))).toContain(
      'rules[0].match.srcIPRanges: unknown field',
    );
    const rule = '  - { priority: 5, direction: INGRESS, action: deny, match: {} }\n';
    writeFileSync(
      file('twice.yaml'),
      `kind: FirewallPolicy\nname: ${POLICY}\nrules:\n${rule}${rule}`,
    );
    expect(oneLine(await rollout(['plan', 'twice.yaml']))).toContain(
      'rules[1].priority: 5 is also the priority of rules[0]',
    );
    writeFileSync(
      file('huge.yaml'),
      `kind: FirewallPolicy\nrules: []\n#${'x'.repeat(10 * 1024 * 1024)}\n`,
    );
    expect(oneLine(await rollout(['drift', 'huge.yaml']))).toContain(
      'huge.yaml is 10.0 MiB; a policy file is at most 2 MiB',
    );

    // A plan file edited by hand (another experiment etag) is refused before anything is sent.
    const exported = await rollout(['export', POLICY, '-o', 'now.yaml']);
    expect(exported.code).toBe(0);
    writeFileSync(
      file('now.yaml'),
      readFileSync(file('now.yaml'), 'utf8').replace(/displayName: .*/, 'displayName: hostile'),
    );
    expect((await rollout(['plan', 'now.yaml', '--out', 'hostile.plan.json'])).code).toBe(2);
    const sealed = JSON.parse(readFileSync(file('hostile.plan.json'), 'utf8'));
    sealed.body.experimentEtag = 'someone-elses';
    writeFileSync(file('hostile.plan.json'), JSON.stringify(sealed));
    expect(oneLine(await rollout(['apply', 'hostile.plan.json']))).toBe(
      'rollout: hostile.plan.json was changed after rollout plan wrote it (its sha256 digest does not match): nothing was applied; make a new plan.',
    );

    const [port] = await freePorts(1);
    const down = await rollout(['drift', 'now.yaml', '--gateway', `http://127.0.0.1:${port}`]);
    expect(oneLine(down)).toBe(
      `rollout: cannot reach the gateway at http://127.0.0.1:${port}: connection refused`,
    );
    expect(await livePolicy()).toEqual(before);
  }, 120_000);
});
