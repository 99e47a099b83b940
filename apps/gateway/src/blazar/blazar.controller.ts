import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOperation,
  ApiResponse,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { Public } from '@rollout/platform/health';
import type { FastifyReply } from 'fastify';
import { BLAZAR_TOKEN_AUTH } from '../http/openapi-security';
import { RequestId } from '../http/request-id.decorator';
import { BlazarTokenGuard } from './blazar-token.guard';
import { BlazarCheckRequestDto, BlazarCheckUpdateRequestDto, BlazarDenialDto } from './blazar.dto';
import { BlazarHook, BlazarClient } from './blazar.client';

/** Blazar's payloads are taken as sent (typed loosely so the whitelisting pipe leaves them whole). */
type BlazarPayload = Record<string, unknown>;

/**
 * Blazar's ExternalServiceFilter endpoint (204 allows, 403 `{"message"}` refuses). Admitted leases
 * go into the ledger, so MaxActiveLeases counts them and on-end releases them.
 */
@Public()
@ApiTags('blazar')
@ApiSecurity(BLAZAR_TOKEN_AUTH)
@ApiResponse({ status: 400, description: 'INVALID_ARGUMENT: a bad field, named' })
@ApiResponse({ status: 401, description: 'UNAUTHENTICATED: missing or unknown X-Auth-Token' })
@UseGuards(BlazarTokenGuard)
@Controller('v1/blazar')
export class BlazarController {
  constructor(private readonly blazar: BlazarClient) {}

  @Post('check-create')
  @HttpCode(204)
  @ApiOperation({ summary: 'May this lease be created? 204 yes; 403 {"message"} no' })
  @ApiBody({ type: BlazarCheckRequestDto })
  @ApiNoContentResponse({ description: 'Allowed (the lease is now tracked)' })
  @ApiResponse({
    status: 403,
    type: BlazarDenialDto,
    description: "Refused, with the filter's message",
  })
  checkCreate(
    @Body() body: BlazarPayload,
    @Res() res: FastifyReply,
    @RequestId() traceId?: string,
  ) {
    return this.answer('check-create', body, res, traceId);
  }

  @Post('check-update')
  @HttpCode(204)
  @ApiOperation({
    summary: 'May this lease change from current_lease to lease? 204 yes; 403 {"message"} no',
  })
  @ApiBody({ type: BlazarCheckUpdateRequestDto })
  @ApiNoContentResponse({ description: 'Allowed' })
  @ApiResponse({
    status: 403,
    type: BlazarDenialDto,
    description: "Refused, with the filter's message",
  })
  checkUpdate(
    @Body() body: BlazarPayload,
    @Res() res: FastifyReply,
    @RequestId() traceId?: string,
  ) {
    return this.answer('check-update', body, res, traceId);
  }

  @Post('on-end')
  @HttpCode(204)
  @ApiOperation({
    summary: 'The lease is ending: released from the ledger, on_end sent to the filters (once)',
  })
  @ApiBody({ type: BlazarCheckRequestDto })
  @ApiNoContentResponse({ description: 'Noted' })
  onEnd(@Body() body: BlazarPayload, @Res() res: FastifyReply, @RequestId() traceId?: string) {
    return this.answer('on-end', body, res, traceId);
  }

  private async answer(
    hook: BlazarHook,
    body: BlazarPayload,
    res: FastifyReply,
    traceId?: string,
  ): Promise<void> {
    const verdict = await this.blazar.decide(hook, body, traceId);
    if (verdict.allowed) await res.status(204).send();
    else await res.status(403).send({ message: verdict.message ?? '' });
  }
}
