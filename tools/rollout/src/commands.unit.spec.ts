import type { Operation } from '@rollout/contracts';
import { Io, finish, isReviewAnswer } from './commands';
import { CliError } from './gateway';
import { EXIT } from './plan-model';

function capture(): Io & { stdout: string } {
  const io = {
    stdout: '',
    out: (text: string) => (io.stdout += text),
    err: () => undefined,
    colour: false,
    progress: () => undefined,
  };
  return io;
}

const operation = (done: boolean): Operation =>
  ({
    name: 'operations/42',
    done,
    metadata: {},
    ...(done ? { response: { etag: 'P2' } } : {}),
  }) as unknown as Operation;

describe('what apply says the service did', () => {
  it('says applied, with the new etag, when the operation is done', () => {
    const io = capture();
    expect(finish(operation(true), 'Applied x to y', io)).toBe(EXIT.OK);
    expect(io.stdout).toBe("Applied x to y: the live policy's etag is now P2.\n");
  });

  it('says submitted for review, exit 4, when the service answers with an operation not done', () => {
    const io = capture();
    expect(finish(operation(false), 'Applied x to y', io)).toBe(EXIT.SUBMITTED_FOR_REVIEW);
    expect(io.stdout).toBe(
      'Submitted for review: operations/42 waits for approval; nothing is live yet.\n',
    );
  });

  it('takes a refusal whose reason names a review or an approval as a submission, any other as a refusal', () => {
    const refusal = (reason: string) =>
      new CliError('x', {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: 'x',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'd' }],
      });
    expect(isReviewAnswer(refusal('REVIEW_REQUIRED'))).toBe(true);
    expect(isReviewAnswer(refusal('PENDING_APPROVAL'))).toBe(true);
    expect(isReviewAnswer(refusal('ETAG_MISMATCH'))).toBe(false);
    expect(isReviewAnswer(new CliError('cannot reach the gateway'))).toBe(false);
  });
});
