import { Logger } from '@nestjs/common';
import { eventually } from '@rollout/testing/kit';
import { evaluatorSystem } from '../../test/evaluator-system';
import { LIVE } from '../../test/example-policies';
import { publishTraffic, settledUpTo, trafficEvent } from '../../test/traffic-publishing';

/** The evaluator's log of dead-lettered traffic: a flood of bad events is a few lines, not one each. */
const system = evaluatorSystem({
  given: async ({ world }) => {
    await world.policy('web', LIVE);
  },
  env: { EVALUATOR_DEAD_LETTER_LOG_INTERVAL_MS: '2000' },
});
/** Every WARN line the evaluator's loggers write (observed, still written). */
const warn = jest.spyOn(Logger.prototype, 'warn');

const deadLetterLines = () =>
  warn.mock.calls.filter((args) =>
    args.some((a) => typeof a === 'string' && /dead-lettered/.test(a)),
  );

afterAll(() => warn.mockRestore());

it('logs 1,000 dead-lettered events as a handful of summary lines with counts per reason and 3 samples', async () => {
  const { nc, iso } = system;
  warn.mockClear();
  const typos = Array.from({ length: 800 }, (_, i) => trafficEvent(i));
  const bad = Array.from({ length: 200 }, (_, i) =>
    trafficEvent(i, { srcIp: `10.0.0.${300 + i}` }),
  );
  await publishTraffic(nc, iso, 'web-typo', typos);
  const seq = await publishTraffic(nc, iso, 'web', bad);
  await eventually(() => settledUpTo(nc, iso, seq), { what: 'settled', timeoutMs: 30_000 });

  // The last interval's line comes once it has run its length.
  const summaries = () =>
    deadLetterLines().map((args) => args[0] as { deadLettered: number; byReason: object });
  await eventually(
    () =>
      summaries().reduce((sum, s) => sum + (s.deadLettered ?? 0), 0) === 1_000 ? true : undefined,
    { what: 'every dead letter in a summary line', timeoutMs: 15_000 },
  );
  const lines = deadLetterLines();
  expect(lines.length).toBeLessThanOrEqual(20);
  const byReason: Record<string, number> = {};
  for (const { byReason: counts } of summaries())
    for (const [reason, n] of Object.entries(counts))
      byReason[reason] = (byReason[reason] ?? 0) + n;
  expect(byReason).toEqual({ unknown_policy: 800, bad_address: 200 });
  for (const [summary] of lines)
    expect((summary as { samples: unknown[] }).samples.length).toBeLessThanOrEqual(3);
}, 60_000);
