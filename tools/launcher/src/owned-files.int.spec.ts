import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeOwnedFile, writeOwnedFile } from './owned-files';

/** Two launchers from one checkout: the first is another running process, the second is this one. */
describe('the files npm start leaves for local tools (tmp/dev-token)', () => {
  let dir: string;
  let first: ChildProcess;
  let token: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'owned-files-'));
    token = join(dir, 'tmp', 'dev-token');
    first = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  });
  afterEach(() => {
    first.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it("a second launcher neither overwrites nor removes the running first one's token", () => {
    expect(writeOwnedFile(token, 'dev_first\n', first.pid)).toEqual({ written: true });
    expect(writeOwnedFile(token, 'dev_second\n')).toEqual({ written: false, ownerPid: first.pid });
    removeOwnedFile(token, 'dev_second\n');
    expect(readFileSync(token, 'utf8')).toBe('dev_first\n');
    removeOwnedFile(token, 'dev_first\n', first.pid);
    expect(existsSync(token)).toBe(false);
    expect(existsSync(`${token}.owner`)).toBe(false);
  });

  it('takes over a token left by a launcher that is gone, and removes only what it wrote', async () => {
    writeOwnedFile(token, 'dev_first\n', first.pid);
    await new Promise((resolve) => first.once('exit', resolve).kill('SIGKILL'));
    expect(writeOwnedFile(token, 'dev_second\n')).toEqual({ written: true });
    // Someone replaced it by hand: not ours any more, so it stays.
    writeFileSync(token, 'dev_by_hand\n');
    removeOwnedFile(token, 'dev_second\n');
    expect(readFileSync(token, 'utf8')).toBe('dev_by_hand\n');
  });
});
