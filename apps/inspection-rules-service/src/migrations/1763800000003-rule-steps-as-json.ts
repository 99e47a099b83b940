import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conditions and actions are kept as `json`, the text as written, not `jsonb`: jsonb sorts
 * the keys of every dict, and Ironic keeps them as written (a dict interpolated into a string
 * reads `{'zz': 1, 'a': 2}`, not `{'a': 2, 'zz': 1}`). Rows stored before keep the order jsonb
 * gave them: the order as written is gone.
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
