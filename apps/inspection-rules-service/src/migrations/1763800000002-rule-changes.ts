import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Written in the transaction of the change itself; kept when the rule is deleted. */
export class RuleChanges1763800000002 implements MigrationInterface {
  name = 'RuleChanges1763800000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE rule_changes (
        seq bigserial PRIMARY KEY,
        rule_uuid uuid NOT NULL,
        change varchar(16) NOT NULL CHECK (change IN ('created', 'imported', 'updated', 'deleted')),
        actor varchar(255) NOT NULL,
        request_id varchar(255),
        time timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query('CREATE INDEX rule_changes_rule_idx ON rule_changes (rule_uuid, seq)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE rule_changes');
  }
}
