import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { DeadLetterSummary, GetDeadLettersRequest, PREVIEW_SUBJECTS } from '@rollout/contracts';
import { deadLetterQuery, deadLetterSummary } from '@rollout/domain/preview';
import { StateFence } from '../state/state-fence';
import { DeadLettersRepository } from './dead-letters.repository';

/** preview.v1.deadLetters: what the evaluator dead-lettered for a project and location. */
@Controller()
export class DeadLetterHandlers {
  constructor(
    private readonly deadLetters: DeadLettersRepository,
    private readonly fence: StateFence,
  ) {}

  @MessagePattern(PREVIEW_SUBJECTS.deadLetters)
  async deadLetterSummary(
    @Payload() request: GetDeadLettersRequest,
    @Ctx() context: NatsContext,
  ): Promise<DeadLetterSummary> {
    await this.fence.passed(context);
    const { counts, samples } = await this.deadLetters.read(deadLetterQuery(request));
    return deadLetterSummary(counts, samples);
  }
}
