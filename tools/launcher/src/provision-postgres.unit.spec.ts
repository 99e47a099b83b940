import { provisioningFrom } from './provision-postgres';

describe('what the postgres-roles Job provisions, from its environment', () => {
  const env = {
    DATABASE_URL: 'postgres://postgres@policy-rollout-db-rw:5432/app',
    DATABASE_PASSWORD: 'admin-password',
    DATABASE_ROLES: 'experiment:experiment, preview:preview',
    DATABASE_ROLE_PASSWORD_EXPERIMENT: 'experiment-password',
  };

  it('takes the role:schema pairs, with the passwords given and only those', () => {
    expect(provisioningFrom(env)).toEqual({
      client: {
        connectionString: env.DATABASE_URL,
        password: 'admin-password',
        ssl: false,
      },
      roles: [
        { role: 'experiment', schema: 'experiment', password: 'experiment-password' },
        { role: 'preview', schema: 'preview' },
      ],
    });
  });

  it('connects with TLS as the services do', () => {
    expect(provisioningFrom({ ...env, DATABASE_SSL_MODE: 'require' }).client.ssl).toEqual({
      rejectUnauthorized: false,
    });
  });

  it('refuses, naming the variable, what it cannot provision safely', () => {
    expect(() => provisioningFrom({ ...env, DATABASE_ROLES: '' })).toThrow(
      /DATABASE_ROLES must name at least one role:schema pair/,
    );
    expect(() => provisioningFrom({ ...env, DATABASE_ROLES: 'Experiment;DROP:x' })).toThrow(
      /DATABASE_ROLES must be role:schema pairs of lower-case SQL identifiers/,
    );
    expect(() => provisioningFrom({ ...env, DATABASE_SSL_MODE: 'prefer' })).toThrow(
      /DATABASE_SSL_MODE must be disable, require, verify-ca or verify-full/,
    );
  });

  it('refuses a role password Postgres would normalise before hashing, without printing it', () => {
    const refusal = () =>
      provisioningFrom({ ...env, DATABASE_ROLE_PASSWORD_EXPERIMENT: 'pässwört-secret' });
    expect(refusal).toThrow(
      /DATABASE_ROLE_PASSWORD_EXPERIMENT must be printable ASCII .*\(value hidden\)/,
    );
    expect(refusal).not.toThrow(/pässwört-secret/);
  });
});
