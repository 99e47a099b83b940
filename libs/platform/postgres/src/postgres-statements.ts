export const READINESS_PROBE = 'SELECT 1';

export const SCHEMA_EXISTS = 'SELECT 1 FROM pg_namespace WHERE nspname = $1';
export const MIGRATIONS_LOCK = 'SELECT pg_advisory_lock(hashtext($1))';
export const MIGRATIONS_UNLOCK = 'SELECT pg_advisory_unlock(hashtext($1))';

/** Two provisioning runs at once (replicas of a Job, two launchers) take turns. */
export const PROVISIONING_LOCK = `SELECT pg_advisory_xact_lock(hashtext('provision service roles'))`;
export const CURRENT_DATABASE = 'SELECT current_database() AS name';
export const ROLE_POWERS =
  'SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls FROM pg_roles WHERE rolname = $1';
export const STORED_PASSWORD = 'SELECT rolpassword AS stored FROM pg_authid WHERE rolname = $1';

export const OTHER_CONNECTABLE_DATABASES = `SELECT d.datname AS name FROM pg_database d
      WHERE d.datname <> current_database() AND d.datallowconn
        AND EXISTS (SELECT 1 FROM unnest($1::text[]) AS r(name)
                     WHERE has_database_privilege(r.name, d.oid, 'CONNECT'))
      ORDER BY 1`;

/** Sequences that follow a table left out. */
export const RELATIONS_OWNED_BY_OTHERS = `SELECT c.relname AS name, c.relkind AS kind
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relowner <> $2::regrole
        AND c.relkind IN ('r', 'p', 'f', 'v', 'm', 'S')
        AND NOT (c.relkind = 'S' AND EXISTS (
          SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
      ORDER BY c.relkind <> 'r'`;
