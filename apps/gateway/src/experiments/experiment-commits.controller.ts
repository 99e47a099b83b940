import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RequestId } from '../http/request-id.decorator';
import { experimentVerbRoute } from '../http/resource-routes';
import { caller } from './command-caller';
import {
  ApproveCommitRequestDto,
  CommitRequestDto,
  OperationDto,
  ProposeCommitRequestDto,
} from './experiment-operations.dto';
import { ExperimentPath, ExperimentsClient } from './experiments.client';
import { publishedOperationId } from './published-operation-id';
import { FirewallPolicyApi } from './firewall-policy-api';

/** AIP-236's commit, alone or, where a project requires review, proposed and then approved. */
@FirewallPolicyApi()
@Controller()
export class ExperimentCommitsController {
  constructor(private readonly experiments: ExperimentsClient) {}

  @Post(experimentVerbRoute('commit'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    operationId: publishedOperationId('commit'),
    summary:
      "Atomically make the experiment's policy the live policy and delete the experiment (any state)",
    description:
      'With requireGates or reportEtag, the preview report is checked first (a separate step, before the commit): see docs/readiness-gates.md.',
  })
  @ApiBody({ type: CommitRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the new live policy',
  })
  @ApiResponse({
    status: 409,
    description:
      'ABORTED: etag or livePolicyEtag is stale, or the report moved on since reportEtag; nothing changed',
  })
  @ApiResponse({
    status: 400,
    description:
      'FAILED_PRECONDITION (requireGates): the unmet readiness gates, one google.rpc.PreconditionFailure violation each',
  })
  @HttpCode(200)
  commit(
    @Param() path: ExperimentPath,
    @Body() body: CommitRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.commit(
      path,
      {
        etag: body.etag,
        livePolicyEtag: body.livePolicyEtag,
        parentEtag: body.parentEtag,
        ...(body.reason ? { reason: body.reason } : {}),
      },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
    );
  }

  @Post(experimentVerbRoute('proposeCommit'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    operationId: publishedOperationId('proposeCommit'),
    summary: 'Propose to commit the experiment, for another editor to approve',
    description:
      'Where the project requires review (GET /v1/projects/{project}/settings), a commit is a proposal: it is recorded on the experiment (`commitProposal`, shown on GET; the etag does not move) and bound to the experiment as it is now: any update drops it. Checked as commit is (etags, requireGates, reportEtag). See docs/api.md#reviewed-commits.',
  })
  @ApiBody({ type: ProposeCommitRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the experiment with its commitProposal',
  })
  @ApiResponse({ status: 409, description: 'ABORTED: etag or livePolicyEtag is stale' })
  @HttpCode(200)
  proposeCommit(
    @Param() path: ExperimentPath,
    @Body() body: ProposeCommitRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.commit(
      path,
      {
        etag: body.etag,
        livePolicyEtag: body.livePolicyEtag ?? body.parentEtag,
        ...(body.reason ? { reason: body.reason } : {}),
      },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
      'proposeCommit',
    );
  }

  @Post(experimentVerbRoute('approveCommit'))
  @ApiParam({ name: 'policy' })
  @ApiParam({ name: 'experiment' })
  @ApiOperation({
    operationId: publishedOperationId('approveCommit'),
    summary: "Approve the experiment's commit proposal, and commit",
    description:
      'By an editor other than the proposer. The revision keeps the proposer, the approver, both request ids, the reason and the reportEtag the approver read.',
  })
  @ApiBody({ type: ApproveCommitRequestDto })
  @ApiOkResponse({
    type: OperationDto,
    description: 'An Operation whose response is the new live policy',
  })
  @ApiResponse({
    status: 400,
    description:
      'FAILED_PRECONDITION (NO_COMMIT_PROPOSAL): nothing proposed, or dropped by an update',
  })
  @ApiResponse({
    status: 403,
    description:
      'PERMISSION_DENIED (SELF_APPROVAL): the proposer cannot approve their own proposal',
  })
  @ApiResponse({ status: 409, description: 'ABORTED: a stale etag, or the report moved on' })
  @HttpCode(200)
  approveCommit(
    @Param() path: ExperimentPath,
    @Body() body: ApproveCommitRequestDto,
    @CurrentPrincipal() principal: Principal,
    @RequestId() traceId?: string,
  ) {
    return this.experiments.commit(
      path,
      { etag: body.etag, livePolicyEtag: body.livePolicyEtag },
      { requireGates: body.requireGates, reportEtag: body.reportEtag },
      caller(principal, body.requestId, traceId),
      'approveCommit',
    );
  }
}
