import { Injectable } from '@nestjs/common';
import {
  ENFORCEMENT_SUBJECTS as S,
  FilterTerm,
  filterTerms,
  LEASE_STATUSES,
  Lease,
  LeaseInput,
  LeaseStatus,
  ListDecisionsResponse,
  ListLeasesResponse,
  StatusError,
} from '@rollout/contracts';
import { BackendClient } from '../http/backend-client';

export interface LeasePath {
  project: string;
  lease: string;
}

/** Who asks (recorded on every decision; the filters' user_id) and the request id for tracing. */
export interface LeaseCaller {
  actor: string;
  traceId?: string;
}

/** AIP-160's subset a status list needs; anything else is INVALID_ARGUMENT naming `filter`. */
export function statusesFromFilter(filter: string): LeaseStatus[] {
  const statuses: LeaseStatus[] = [];
  for (const term of filterTerms(filter, { keyword: 'OR', anyCase: true })) {
    const status = 'error' in term ? undefined : leaseStatus(term);
    if (!status) {
      throw StatusError.invalidArgument(
        `filter supports status = ${LEASE_STATUSES.join('|')} joined by OR.`,
        [{ field: 'filter', description: `cannot read "${term.text.slice(0, 60)}"` }],
      );
    }
    statuses.push(status);
  }
  return statuses;
}

function leaseStatus({ field, op, value }: FilterTerm): LeaseStatus | undefined {
  return field === 'status' && op === '=' && (LEASE_STATUSES as readonly string[]).includes(value)
    ? (value as LeaseStatus)
    : undefined;
}

@Injectable()
export class LeasesClient {
  constructor(private readonly backend: BackendClient) {}

  create(project: string, leaseId: string | undefined, lease: LeaseInput, caller: LeaseCaller) {
    return this.backend.call<Lease>(
      S.createLease,
      { project, ...(leaseId ? { leaseId } : {}), lease, actor: caller.actor },
      caller.traceId,
    );
  }

  get(path: LeasePath, traceId?: string) {
    return this.backend.call<Lease>(
      S.getLease,
      { project: path.project, leaseId: path.lease },
      traceId,
    );
  }

  list(
    project: string,
    query: { statuses?: string[]; filter?: string; pageSize?: number; pageToken?: string },
    traceId?: string,
  ) {
    const statuses = [
      ...(query.statuses ?? []),
      ...(query.filter ? statusesFromFilter(query.filter) : []),
    ];
    return this.backend.call<ListLeasesResponse>(
      S.listLeases,
      {
        project,
        ...(statuses.length ? { statuses } : {}),
        pageSize: query.pageSize,
        pageToken: query.pageToken,
      },
      traceId,
    );
  }

  update(path: LeasePath, lease: LeaseInput, caller: LeaseCaller) {
    return this.backend.call<Lease>(
      S.updateLease,
      { project: path.project, leaseId: path.lease, lease, actor: caller.actor },
      caller.traceId,
    );
  }

  end(path: LeasePath, caller: LeaseCaller) {
    return this.backend.call<Lease>(
      S.endLease,
      { project: path.project, leaseId: path.lease, actor: caller.actor },
      caller.traceId,
    );
  }

  delete(path: LeasePath, caller: LeaseCaller) {
    return this.backend.call<Record<string, never>>(
      S.deleteLease,
      { project: path.project, leaseId: path.lease, actor: caller.actor },
      caller.traceId,
    );
  }

  decisions(path: LeasePath, page: { pageSize?: number; pageToken?: string }, traceId?: string) {
    return this.backend.call<ListDecisionsResponse>(
      S.listDecisions,
      { project: path.project, leaseId: path.lease, ...page },
      traceId,
    );
  }
}
