import { Injectable } from '@nestjs/common';
import type { Operation } from '@rollout/contracts';
import type { ClaimedWrite } from '@rollout/platform/event-store';
import { DataSource } from 'typeorm';
import { OperationRecord } from '../read-models/records';

/** The `operations` table: every experiment mutation's answer, kept for GET /v1/operations. */
@Injectable()
export class OperationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  save(operation: Operation): ClaimedWrite {
    return (p) =>
      `INSERT INTO operations (name, operation) SELECT ${p(operation.name)}, ${p(JSON.stringify(operation))}::jsonb FROM claimed`;
  }

  async find(name: string): Promise<Operation | undefined> {
    return (await this.dataSource.getRepository(OperationRecord).findOneBy({ name }))?.operation;
  }
}
