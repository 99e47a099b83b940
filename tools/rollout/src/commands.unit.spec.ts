import type { FirewallPolicyExperiment, Operation, Status } from '@rollout/contracts';
import { Io, applied, refusal, submittedForReview } from './commands';
import { refusedWith } from './gateway';
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

const EXPERIMENT = 'projects/acme/locations/global/firewallPolicies/edge/experiments/rollout';

/** A refusal as the gateway answers it (google.rpc.Status with an ErrorInfo reason). */
const refused = (
  code: number,
  status: Status['status'],
  message: string,
  reason: string,
): Status => ({
  code,
  status,
  message,
  details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'd' }],
});

describe('what apply and approve say the service did', () => {
  it('says applied, with the new etag, when the commit or the approval is done', () => {
    const io = capture();
    const operation = {
      name: 'operations/42',
      done: true,
      metadata: {},
      response: { etag: 'P2' },
    } as unknown as Operation;
    expect(applied(operation, 'Applied x to y', io)).toBe(EXIT.OK);
    expect(io.stdout).toBe("Applied x to y: the live policy's etag is now P2.\n");
  });

  it('names the proposal it submitted for review, and how another editor approves it', () => {
    const experiment = {
      name: EXPERIMENT,
      etag: 'E1',
      commitProposal: {
        experimentEtag: 'E1',
        proposer: 'pipeline',
        proposeTime: '2026-12-07T05:19:30.120Z',
        reason: 'SEC-42',
      },
    } as unknown as FirewallPolicyExperiment;
    expect(submittedForReview(experiment, 'edge.plan.json')).toBe(
      `Submitted for review as the commit proposal of ${EXPERIMENT} (etag E1) by pipeline; another editor approves with \`rollout approve edge.plan.json\`. Nothing is live yet.\n`,
    );
  });

  it("refuses the proposer's own approval in the service's words, with no new plan to make", () => {
    const error = refusedWith(
      refused(
        403,
        'PERMISSION_DENIED',
        'The proposer of a commit cannot approve it: another editor must.',
        'SELF_APPROVAL',
      ),
    );
    expect(refusal('approval', error, [], 'edge.plan.json').message).toBe(
      'the service refused the approval, nothing changed: PERMISSION_DENIED (HTTP 403): The proposer of a commit cannot approve it: another editor must.',
    );
  });

  it('refuses an approval of a moved experiment with what moved since the plan', () => {
    const error = refusedWith(
      refused(409, 'ABORTED', 'The experiment has etag E2, not E1.', 'ETAG_MISMATCH'),
    );
    const line = refusal(
      'approval',
      error,
      ['the experiment moved from etag E1 to E2'],
      'edge.plan.json',
    );
    expect(line.message).toBe(
      'the service refused the approval, nothing changed: ABORTED (HTTP 409): The experiment has etag E2, not E1. Since the plan: the experiment moved from etag E1 to E2. Make a new plan.',
    );
    expect(line.status?.status).toBe('ABORTED');
  });

  it('says to propose first when nothing was proposed for the planned version', () => {
    const error = refusedWith(
      refused(
        400,
        'FAILED_PRECONDITION',
        'This version of experiment "x" has no commit proposal to approve (a change of the experiment drops it).',
        'NO_COMMIT_PROPOSAL',
      ),
    );
    expect(refusal('approval', error, [], 'edge.plan.json').message).toBe(
      'the service refused the approval, nothing changed: FAILED_PRECONDITION (HTTP 400): This version of experiment "x" has no commit proposal to approve (a change of the experiment drops it). Propose it first: rollout apply edge.plan.json.',
    );
  });
});
