import { formatContractVersion, parseContractVersion } from '@rollout/contracts';
import Ajv from 'ajv';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  TRAFFIC_V2ALPHA,
  TRAFFIC_V2ALPHA_BATCH_SCHEMA,
  TRAFFIC_V2ALPHA_EVENT_SCHEMA,
  TrafficEventBatch,
  trafficV2alphaSubject,
} from './index';
import { TRAFFIC_V2ALPHA_PACKAGE } from './package';

/**
 * The hand-written schemas the evaluator compiles must accept the package's golden messages
 * (the tools' golden test checks them against the generated schema; it sees only the stable
 * lib's exports), and the package's version must travel in a Contract-Version header.
 */
const goldenRoot = join(__dirname, '../../../../contracts/golden/traffic.v2alpha');
const goldens = readdirSync(goldenRoot).flatMap((version) =>
  readdirSync(join(goldenRoot, version)).map(
    (file) =>
      [
        `${version}/${file}`,
        JSON.parse(readFileSync(join(goldenRoot, version, file), 'utf8')) as TrafficEventBatch,
      ] as const,
  ),
);

describe('traffic.v2alpha', () => {
  const ajv = new Ajv({ allErrors: true, strict: true });
  const validateBatch = ajv.compile(TRAFFIC_V2ALPHA_BATCH_SCHEMA);
  const validateEvent = ajv.compile(TRAFFIC_V2ALPHA_EVENT_SCHEMA);

  it('has goldens for its current version', () => {
    expect(goldens.some(([file]) => file.startsWith(`${TRAFFIC_V2ALPHA_PACKAGE.version}/`))).toBe(
      true,
    );
  });

  it.each(goldens)(
    'golden %s is accepted by the hand-written batch and event schemas',
    (_, batch) => {
      expect(validateBatch(batch) ? [] : validateBatch.errors).toEqual([]);
      for (const event of batch.events)
        expect(validateEvent(event) ? [] : validateEvent.errors).toEqual([]);
    },
  );

  it('refuses what v1 spelled differently, an empty batch and an oversized one', () => {
    const event = {
      id: 'e1',
      time: '2025-11-21T10:00:00Z',
      direction: 'INGRESS',
      srcIp: '10.0.0.1',
      destIp: '10.0.0.2',
      protocol: 'tcp',
    };
    expect(validateEvent(event)).toBe(false);
    expect(
      validateEvent({
        ...event,
        srcIp: undefined,
        destIp: undefined,
        sourceIp: '10.0.0.1',
        destinationIp: '10.0.0.2',
      }),
    ).toBe(true);
    expect(validateBatch({ events: [] })).toBe(false);
    expect(validateBatch({ events: Array.from({ length: 1001 }, () => ({})) })).toBe(false);
    expect(validateBatch([event])).toBe(false);
  });

  it('agrees with package.ts, and its version travels in Contract-Version', () => {
    expect(TRAFFIC_V2ALPHA).toEqual({
      name: TRAFFIC_V2ALPHA_PACKAGE.name,
      version: TRAFFIC_V2ALPHA_PACKAGE.version,
    });
    expect(formatContractVersion(TRAFFIC_V2ALPHA)).toBe('traffic.v2alpha/2.1.0-alpha.1');
    expect(parseContractVersion(formatContractVersion(TRAFFIC_V2ALPHA))).toEqual(TRAFFIC_V2ALPHA);
    expect(trafficV2alphaSubject('acme', 'global', 'edge')).toBe(
      'traffic.v2alpha.acme.global.edge',
    );
  });
});
