import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `json`, not `jsonb`: jsonb sorts dict keys, and Ironic keeps them as written (an interpolated dict
 * reads `{'zz': 1, 'a': 2}`). Rows stored before keep jsonb's order.
 */
export class RuleStepsAsJson1763800000003 implements MigrationInterface {
  name = 'RuleStepsAsJson1763800000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE inspection_rules
        ALTER COLUMN conditions DROP DEFAULT,
        ALTER COLUMN conditions TYPE json USING conditions::json,
        ALTER COLUMN conditions SET DEFAULT '[]',
        ALTER COLUMN actions TYPE json USING actions::json`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE inspection_rules
        ALTER COLUMN conditions DROP DEFAULT,
        ALTER COLUMN conditions TYPE jsonb USING conditions::jsonb,
        ALTER COLUMN conditions SET DEFAULT '[]',
        ALTER COLUMN actions TYPE jsonb USING actions::jsonb`);
  }
}
