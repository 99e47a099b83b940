import { eventually } from '@rollout/testing/kit';
import { writeFileSync } from 'node:fs';
import { enforcementServiceSystem } from '../../test/enforcement-service-system';

/**
 * SIGHUP reloads the chain file: an adapter handler whose params changed gets a new session and
 * its old one is closed once the new one is open; an invalid (or empty, half written) file is
 * refused and the service keeps running the old chain; SIGTERM closes the last session. The file
 * watch is set to an hour, so only SIGHUP can reload here. The adapter is a few lines of the raw
 * `nats` client on the real server.
 */
describe('enforcement-service chain reload', () => {
  const system = enforcementServiceSystem({
    probe: 'timeout_ms: 1000',
    // Errors only: the refused reload is what the test reads.
    env: { LOG_LEVEL: 'error' },
  });
  const { chainFile: file, sessions } = system;
  const logs = () => system.service.stdout();
  const sighup = () => system.service.child.kill('SIGHUP');

  it('opens the session at boot', () => {
    expect(sessions).toEqual(['create s1 {"version":1}']);
  });

  it('on SIGHUP, a changed handler gets a new session and the old one is closed', async () => {
    system.writeChain(2);
    sighup();
    await eventually(() => (sessions.length === 3 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the reload',
    });
    expect(sessions).toEqual(['create s1 {"version":1}', 'create s2 {"version":2}', 'close s1']);
  });

  it('refuses an invalid file on SIGHUP and keeps running; the next valid one applies', async () => {
    writeFileSync(file, 'enabled_filters: [probe]\nfilters: { probe: { adapter: Not_A_Label } }\n');
    sighup();
    await eventually(
      () => (logs().includes('enforcement config not reloaded') ? true : undefined),
      {
        timeoutMs: 15_000,
        what: 'the refusal logged',
      },
    );
    expect(logs()).toContain('filters.probe.adapter: must be an adapter name');
    expect(sessions).toHaveLength(3);
    system.writeChain(3);
    sighup();
    await eventually(() => (sessions.length === 5 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the second reload',
    });
    expect(system.service.child.exitCode).toBeNull();
    expect(sessions.slice(3)).toEqual(['create s3 {"version":3}', 'close s2']);
  });

  it('keeps the session when a reload finds the file empty mid-write: the replacement opens before the old session closes', async () => {
    // A file rewritten in place (an editor, a copy over the ConfigMap's file) is empty between
    // its truncation and its write; a reload may land there, then on the written file.
    const before = sessions.length;
    writeFileSync(file, '');
    sighup();
    await eventually(
      () => (logs().includes('is empty') || sessions.length > before ? true : undefined),
      { timeoutMs: 15_000, what: 'the reload of the empty file' },
    );
    system.writeChain(4);
    sighup();
    await eventually(() => (sessions.length === before + 2 ? true : undefined), {
      timeoutMs: 15_000,
      what: 'the reload of the written file',
    });
    expect(sessions.slice(before)).toEqual(['create s4 {"version":4}', 'close s3']);
  });

  it('closes its session when it stops', async () => {
    await system.service.stop();
    expect(sessions.at(-1)).toBe('close s4');
  });
});
