import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every rule change bumps `rules_revision` in the same transaction, so every replica reloads its compiled rule set. */
export class CreateInspectionRules1763800000000 implements MigrationInterface {
  name = 'CreateInspectionRules1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE inspection_rules (
        uuid uuid PRIMARY KEY,
        seq bigserial NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        priority integer NOT NULL DEFAULT 0,
        description varchar(255),
        scope varchar(255),
        sensitive boolean NOT NULL DEFAULT false,
        phase varchar(16) NOT NULL DEFAULT 'main',
        conditions jsonb NOT NULL DEFAULT '[]',
        actions jsonb NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX inspection_rules_scope_idx ON inspection_rules (scope)');
    await queryRunner.query('CREATE INDEX inspection_rules_phase_idx ON inspection_rules (phase)');
    await queryRunner.query(
      'CREATE TABLE rules_revision (id boolean PRIMARY KEY DEFAULT true CHECK (id), revision bigint NOT NULL)',
    );
    await queryRunner.query('INSERT INTO rules_revision (id, revision) VALUES (true, 0)');
    await queryRunner.query(`
      CREATE TABLE inspection_results (
        event_id text PRIMARY KEY,
        result jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE inspection_results');
    await queryRunner.query('DROP TABLE rules_revision');
    await queryRunner.query('DROP TABLE inspection_rules');
  }
}
