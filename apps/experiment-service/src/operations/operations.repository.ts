import { Injectable } from '@nestjs/common';
import type { Operation } from '@rollout/contracts';
import { Aggregates } from '../aggregates/aggregates';

@Injectable()
export class OperationsRepository {
  constructor(private readonly aggregates: Aggregates) {}

  find(name: string): Promise<Operation | undefined> {
    return this.aggregates.store.answerNamed<Operation>(name);
  }
}
