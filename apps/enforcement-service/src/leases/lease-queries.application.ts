import { Injectable } from '@nestjs/common';
import {
  GetLeaseRequest,
  LEASE_STATUSES,
  Lease as ApiLease,
  LeaseStatus,
  ListDecisionsRequest,
  ListDecisionsResponse,
  ListLeasesRequest,
  ListLeasesResponse,
  StatusError,
  decodeKeyPageToken,
  encodeKeyPageToken,
  pageSizeOf,
} from '@rollout/contracts';
import { type Lease, checkProject, isLookupId, leaseNotFound } from '@rollout/domain/enforcement';
import { Ledger } from '../ledger/ledger.repository';
import { decisionView, leaseView } from './views';

@Injectable()
export class LeaseQueries {
  constructor(private readonly ledger: Ledger) {}

  async get(request: GetLeaseRequest): Promise<ApiLease> {
    return leaseView(await this.find(request));
  }

  async list(request: ListLeasesRequest): Promise<ListLeasesResponse> {
    const project = checkProject(request?.project);
    const statuses = [...new Set(request.statuses ?? [])].sort();
    for (const status of statuses) {
      if (!LEASE_STATUSES.includes(status)) {
        throw StatusError.invalidArgument(`status must be one of ${LEASE_STATUSES.join(', ')}.`, [
          { field: 'status', description: `unknown status ${String(status).slice(0, 40)}` },
        ]);
      }
    }
    const size = pageSizeOf(request.pageSize);
    const query = `${project}|${statuses.join(',')}`;
    const rows = await this.ledger.list(
      project,
      statuses as LeaseStatus[],
      decodeKeyPageToken(request.pageToken, query),
      size + 1,
    );
    const page = rows.slice(0, size);
    return {
      leases: page.map(leaseView),
      ...(rows.length > size
        ? { nextPageToken: encodeKeyPageToken(query, page[page.length - 1].leaseId) }
        : {}),
    };
  }

  async decisions(request: ListDecisionsRequest): Promise<ListDecisionsResponse> {
    const lease = await this.find(request);
    const size = pageSizeOf(request.pageSize);
    const query = `${lease.uid}`;
    const rows = await this.ledger.decisions(
      lease.uid,
      decodeKeyPageToken(request.pageToken, query),
      size + 1,
    );
    const page = rows.slice(0, size);
    return {
      decisions: page.map(decisionView),
      ...(rows.length > size
        ? { nextPageToken: encodeKeyPageToken(query, page[page.length - 1].id) }
        : {}),
    };
  }

  private async find(request: { project: string; leaseId: string }): Promise<Lease> {
    const project = checkProject(request?.project);
    const lease = isLookupId(request.leaseId)
      ? await this.ledger.get(project, request.leaseId)
      : undefined;
    if (!lease) throw leaseNotFound(project, request.leaseId);
    return lease;
  }
}
