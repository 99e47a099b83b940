import type { FirewallPolicy, FirewallPolicyExperiment } from '@rollout/contracts';
import { useEffect, useState } from 'preact/hooks';
import type { PolicyRef } from '../api/client';
import { messageOf } from '../api/errors';
import { RulesTable } from '../components/rules-table';
import { ErrorMessage, formatTime } from '../components/status';
import { useSession } from '../context';
import { Breadcrumb } from '../components/breadcrumb';
import { DeadLettersPanel } from '../changes/dead-letters-panel';
import { idOf } from '../names';
import { routeHref } from '../router';

export const previewStateOf = (experiment: FirewallPolicyExperiment) =>
  experiment.previewMetadata?.state ?? 'STATE_UNDEFINED';
export const PREVIEW_STATE_LABEL: Record<string, string> = {
  STATE_UNDEFINED: 'not previewed',
  ACTIVE: 'previewing',
  SUSPENDED: 'preview stopped',
};

/** At most ten exist, but the list is paged all the same. */
export async function allExperiments(
  api: ReturnType<typeof useSession>['api'],
  ref: PolicyRef,
): Promise<FirewallPolicyExperiment[]> {
  const experiments: FirewallPolicyExperiment[] = [];
  let pageToken: string | undefined;
  do {
    const page = await api.listExperiments(ref, pageToken);
    experiments.push(...page.experiments);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return experiments;
}

export function PolicyPage({ policyRef }: { policyRef: PolicyRef }) {
  const { api, canEdit } = useSession();
  const [policy, setPolicy] = useState<FirewallPolicy>();
  const [experiments, setExperiments] = useState<FirewallPolicyExperiment[]>();
  const [error, setError] = useState<string>();

  useEffect(() => {
    let live = true;
    Promise.all([api.getPolicy(policyRef), allExperiments(api, policyRef)]).then(
      ([found, list]) => {
        if (!live) return;
        setPolicy(found);
        setExperiments(list);
      },
      (caught: unknown) => live && setError(messageOf(caught)),
    );
    return () => void (live = false);
  }, [api, policyRef]);

  return (
    <>
      <Breadcrumb policyRef={policyRef} />
      <h1>Policy {policyRef.policy}</h1>
      <ErrorMessage message={error} />
      <DeadLettersPanel
        project={policyRef.project}
        location={policyRef.location}
        policy={policyRef.policy}
      />
      {policy && (
        <>
          <p>
            {policy.displayName ? <strong>{policy.displayName}. </strong> : null}
            {policy.description} Version <code>{policy.etag}</code>, updated{' '}
            {formatTime(policy.updateTime)}.{' '}
            <a href={routeHref({ page: 'history', ...policyRef })}>History</a> ·{' '}
            <a href={routeHref({ page: 'revisions', ...policyRef })}>Revisions</a>
          </p>
          <RulesTable rules={policy.rules} caption="Live rules" />
        </>
      )}
      {experiments && (
        <section aria-labelledby="experiments-title">
          <h2 id="experiments-title">Experiments</h2>
          <div
            class="table-scroll"
            tabIndex={0}
            role="region"
            aria-label={`Experiments of ${policyRef.policy}`}
          >
            <table class="striped">
              <thead>
                <tr>
                  <th scope="col">Experiment</th>
                  <th scope="col">Preview</th>
                  <th scope="col">Rules</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Report</th>
                </tr>
              </thead>
              <tbody>
                {experiments.length === 0 && (
                  <tr>
                    <td colSpan={5}>No experiments: create one to preview a change.</td>
                  </tr>
                )}
                {experiments.map((experiment) => {
                  const ref = { ...policyRef, experiment: idOf(experiment.name) };
                  const state = previewStateOf(experiment);
                  return (
                    <tr key={experiment.name}>
                      <td>
                        <a href={routeHref({ page: 'experiment', ...ref })}>{ref.experiment}</a>
                      </td>
                      <td>
                        <span class={`state state-${state.toLowerCase()}`}>
                          {PREVIEW_STATE_LABEL[state] ?? state}
                        </span>
                      </td>
                      <td>{experiment.firewallPolicy.rules.length}</td>
                      <td>{formatTime(experiment.updateTime)}</td>
                      <td>
                        {state === 'STATE_UNDEFINED' ? (
                          '–'
                        ) : (
                          <a href={routeHref({ page: 'report', ...ref })}>Preview report</a>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {canEdit && (
            <a role="button" href={routeHref({ page: 'new-experiment', ...policyRef })}>
              New experiment from the live policy
            </a>
          )}
        </section>
      )}
    </>
  );
}
