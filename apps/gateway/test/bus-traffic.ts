import { TRAFFIC_STREAM, trafficMessageId, trafficSubject } from '@rollout/contracts';
import { eventually } from '@rollout/testing/kit';
import { NatsConnection } from 'nats';
import { randomUUID } from 'node:crypto';
import { BusSecuritySystem, policyPath } from './bus-security-system';

// Traffic on the bus security system: what producers send, and the preview counts it moves.

export const event = (id: string) => ({
  id,
  time: '2025-06-01T12:00:00.000Z',
  direction: 'INGRESS',
  srcIp: '10.0.1.1',
  destIp: '192.0.2.1',
  protocol: 'tcp',
  destPort: 22,
});

export const allowSsh = {
  priority: 100,
  direction: 'INGRESS',
  action: 'allow',
  match: { srcIpRanges: ['10.0.0.0/8'], layer4Configs: [{ ipProtocol: 'tcp', ports: ['22'] }] },
};

/** The traffic helpers, on `bus`. */
export function busTraffic({ call, connectAs }: BusSecuritySystem) {
  /** Publishes traffic as the producers we ship do (Nats-Msg-Id in the project's namespace) with JetStream acks, then waits until the evaluator settled it (read as the operator). */
  async function sendTraffic(
    nc: NatsConnection,
    project: string,
    policy: string,
    ids: string[],
  ): Promise<void> {
    let last = 0;
    for (const id of ids)
      last = (
        await nc
          .jetstream()
          .publish(trafficSubject(project, 'global', policy), JSON.stringify(event(id)), {
            msgID: trafficMessageId(project, id),
          })
      ).seq;
    const admin = await connectAs('admin');
    await eventually(
      async () => {
        const info = await (
          await admin.jetstreamManager()
        ).consumers.info(TRAFFIC_STREAM, 'evaluator');
        return info.ack_floor.stream_seq >= last && info.num_ack_pending === 0 ? true : undefined;
      },
      { what: 'traffic settled' },
    );
  }

  async function evaluated(project: string, policy: string): Promise<number> {
    const report = await call(
      'GET',
      `${policyPath(project, policy)}/experiments/preview/previewReport`,
    );
    expect(report.status).toBe(200);
    return (report.body.configurations as { evaluated: number }[]).reduce(
      (sum, c) => sum + c.evaluated,
      0,
    );
  }

  /** A live policy with an experiment `preview` whose preview counts traffic (proved by a probe). */
  async function previewing(project: string, policy: string): Promise<void> {
    expect(
      (
        await call(
          'POST',
          `/v1/projects/${project}/locations/global/firewallPolicies?firewallPolicyId=${policy}`,
          { rules: [allowSsh] },
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await call('POST', `${policyPath(project, policy)}/experiments?experimentId=preview`, {
          firewallPolicy: { rules: [] },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('POST', `${policyPath(project, policy)}/experiments/preview:startPreview`))
        .status,
    ).toBe(200);
    const operator = await connectAs('admin');
    await eventually(
      async () => {
        await sendTraffic(operator, project, policy, [`probe-${randomUUID()}`]);
        return (await evaluated(project, policy)) > 0 ? true : undefined;
      },
      { what: `preview of ${project}/${policy} in force`, timeoutMs: 30_000, intervalMs: 200 },
    );
  }

  return { sendTraffic, evaluated, previewing };
}
