import { eventually } from '@rollout/testing/kit';
import { P, allowSsh, denyNet, previewSystem } from '../../test/preview-system';

describe('the preview report says when the evaluator applied startPreview', () => {
  const { call } = previewSystem();

  const experiment = `${P}/edge/experiments/block-net`;

  beforeAll(async () => {
    expect((await call('POST', `${P}?firewallPolicyId=edge`, { rules: [allowSsh] })).status).toBe(
      200,
    );
    expect(
      (
        await call('POST', `${P}/edge/experiments?experimentId=block-net`, {
          firewallPolicy: { rules: [denyNet, allowSsh] },
        })
      ).status,
    ).toBe(200);
  });

  it('has no previewAppliedTime before startPreview, then one at or after the call, the same on every read', async () => {
    const before = await call('GET', `${experiment}/previewReport`);
    expect(before.status).toBe(200);
    expect(before.body.previewAppliedTime).toBeUndefined();

    const called = Date.now();
    expect((await call('POST', `${experiment}:startPreview`)).status).toBe(200);
    const applied = await eventually(
      async () => (await call('GET', `${experiment}/previewReport`)).body.previewAppliedTime,
      { what: 'previewAppliedTime' },
    );
    expect(applied).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Date.parse(applied)).toBeGreaterThanOrEqual(called);
    expect((await call('GET', `${experiment}/previewReport`)).body.previewAppliedTime).toBe(
      applied,
    );
  });
});
