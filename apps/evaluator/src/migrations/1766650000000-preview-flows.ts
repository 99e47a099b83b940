import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Storage that grows with what the report shows, not per event. Fillfactor 80 makes adding to a
 * flow a HOT update; `preview_counted`'s disjoint ranges are the exactly-once record.
 */
export class PreviewFlows1766650000000 implements MigrationInterface {
  name = 'PreviewFlows1766650000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE preview_flows (
        configuration_id int NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        direction text NOT NULL,
        src_ip inet NOT NULL,
        dest_ip inet NOT NULL,
        protocol text NOT NULL,
        dest_port int NOT NULL,
        live_rule int NOT NULL,
        experiment_rule int NOT NULL,
        live_action text NOT NULL,
        count bigint NOT NULL,
        first_event_time timestamptz NOT NULL,
        last_event_time timestamptz NOT NULL,
        samples jsonb NOT NULL,
        PRIMARY KEY (configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule)
      ) WITH (fillfactor = 80)`);
    await runner.query(`
      CREATE TABLE preview_counted (
        lo bigint NOT NULL,
        hi bigint NOT NULL,
        CHECK (lo <= hi),
        EXCLUDE USING gist (int8range(lo, hi, '[]') WITH &&)
      )`);
    await runner.query(`
      CREATE TABLE preview_traffic_stream (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        created text NOT NULL
      )`);
    await runner.query(`
      ALTER TABLE preview_configurations
        ADD COLUMN flows int NOT NULL DEFAULT 0,
        ADD COLUMN changed_outside_flows bigint NOT NULL DEFAULT 0,
        ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`);
    await runner.query(
      `CREATE INDEX preview_configurations_by_age ON preview_configurations (updated_at)`,
    );
    await runner.query(`
      INSERT INTO preview_flows (configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule,
        live_action, count, first_event_time, last_event_time, samples)
      SELECT configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule, live_action,
        count(*), min(event_time), max(event_time),
        to_jsonb((array_agg(jsonb_build_object('trafficEventId', event_id, 'eventTime', r->>'eventTime')
          || jsonb_strip_nulls(jsonb_build_object('srcPort', r->'connection'->'srcPort')) ORDER BY seq))[1:5])
      FROM (
        SELECT l.configuration_id, l.event_id, l.seq, r,
          r->'connection'->>'direction' AS direction,
          (r->'connection'->>'srcIp')::inet AS src_ip,
          (r->'connection'->>'destIp')::inet AS dest_ip,
          CASE lower(r->'connection'->>'protocol')
            WHEN '6' THEN 'tcp' WHEN '17' THEN 'udp' WHEN '132' THEN 'sctp' WHEN '1' THEN 'icmp'
            WHEN '58' THEN 'icmpv6' WHEN '50' THEN 'esp' WHEN '51' THEN 'ah' ELSE lower(r->'connection'->>'protocol') END AS protocol,
          COALESCE((r->'connection'->>'destPort')::int, -1) AS dest_port,
          COALESCE((r->'liveResult'->>'rulePriority')::int, -1) AS live_rule,
          COALESCE((r->'experimentResult'->>'rulePriority')::int, -1) AS experiment_rule,
          r->'liveResult'->>'action' AS live_action,
          (r->>'eventTime')::timestamptz AS event_time
        FROM preview_logs l, LATERAL (SELECT l.record::jsonb AS r) parsed
        WHERE l.changed
      ) changed
      GROUP BY configuration_id, direction, src_ip, dest_ip, protocol, dest_port, live_rule, experiment_rule, live_action`);
    await runner.query(`
      UPDATE preview_configurations c SET flows = f.n FROM (SELECT configuration_id, count(*) AS n FROM preview_flows GROUP BY configuration_id) f
      WHERE c.id = f.configuration_id`);
    await runner.query(
      `DROP TABLE preview_logs, preview_log_outbox, preview_changed_sources, preview_changed_ports`,
    );
  }

  async down(): Promise<void> {
    throw new Error('the per-event preview store cannot be rebuilt from flows');
  }
}
