import type { DeadLetterReasonCount } from '@rollout/contracts';
import { deadLetters } from '../api/change-api';
import { formatCount, formatTime } from '../components/status';
import { useSession } from '../context';
import { LoadedView } from './loaded-view';
import { useLoaded } from './use-loaded';

const SAMPLES_SHOWN = 5;

export const reasonsText = (reasons: DeadLetterReasonCount[]) =>
  reasons.map((r) => `${r.reason} ${formatCount(r.count)}`).join(', ');

/** On the project's list, every policy id's, those that name no policy (a typo) included; nothing when there are none. */
export function DeadLettersPanel({
  project,
  location,
  policy,
}: {
  project: string;
  location: string;
  policy?: string;
}) {
  const { api } = useSession();
  const loaded = useLoaded(
    () => deadLetters(api, project, location, policy),
    [api, project, location, policy],
  );
  if (loaded.state === 'loading' || (loaded.state === 'ready' && loaded.value.total === 0))
    return null;
  return (
    <section class="dead-letters" aria-labelledby="dead-letters-title">
      <h2 id="dead-letters-title">Dead letters</h2>
      <LoadedView loaded={loaded}>
        {(summary) => (
          <>
            <p data-metric="deadLetters">
              {formatCount(summary.total)} traffic message{summary.total === 1 ? '' : 's'}{' '}
              {policy ? `of ${policy} ` : ''}could not be evaluated.
            </p>
            <div
              class="table-scroll"
              tabIndex={0}
              role="region"
              aria-label="Dead letters by policy"
            >
              <table class="striped">
                <thead>
                  <tr>
                    <th scope="col">Policy id in the traffic</th>
                    <th scope="col">Messages</th>
                    <th scope="col">Reasons</th>
                    <th scope="col">Last</th>
                  </tr>
                </thead>
                <tbody>
                  {summary.byPolicy.map((row) => (
                    <tr key={row.policy}>
                      <td>
                        <code>{row.policy}</code>
                        {row.byReason.some((r) => r.reason === 'unknown_policy')
                          ? ' (no such policy: a typo?)'
                          : ''}
                      </td>
                      <td>{formatCount(row.total)}</td>
                      <td>{reasonsText(row.byReason)}</td>
                      <td class="seen">{formatTime(row.lastTime)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {summary.samples.length > 0 && (
              <details>
                <summary>Latest samples</summary>
                <ul class="dead-letter-samples">
                  {summary.samples.slice(0, SAMPLES_SHOWN).map((sample, index) => (
                    <li key={`${sample.time}:${index}`}>
                      {formatTime(sample.time)} <code>{sample.policy}</code> {sample.reason}:{' '}
                      {sample.detail}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </>
        )}
      </LoadedView>
    </section>
  );
}
