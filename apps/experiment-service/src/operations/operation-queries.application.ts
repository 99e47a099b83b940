import { Injectable } from '@nestjs/common';
import { GetRequest, Operation, StatusError } from '@rollout/contracts';
import { notFound } from '@rollout/domain/experiment';
import { OperationsRepository } from './operations.repository';

@Injectable()
export class OperationQueries {
  constructor(private readonly operations: OperationsRepository) {}

  async getOperation({ name }: GetRequest): Promise<Operation> {
    if (typeof name !== 'string' || !/^operations\/[0-9a-f-]{36}$/.test(name)) {
      throw StatusError.invalidArgument(
        `"${String(name).slice(0, 80)}" is not an operation name.`,
        [{ field: 'name', description: 'operations/{uuid}' }],
      );
    }
    const operation = await this.operations.find(name);
    if (!operation) throw notFound('Operation', name);
    return operation;
  }
}
