import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `jsonb` refuses the NUL characters real inventories carry (DMI strings padded with NULs). */
export class InspectionResultsAsText1763800000001 implements MigrationInterface {
  name = 'InspectionResultsAsText1763800000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE inspection_results ALTER COLUMN result TYPE text USING result::text',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE inspection_results ALTER COLUMN result TYPE jsonb USING result::jsonb',
    );
  }
}
