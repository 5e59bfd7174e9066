/**
 * UpstreamManager fault handling with the misbehaving fixture server: an
 * upstream that fails to start or hangs on startup, a crash during a call,
 * restarts with backoff and giving up, secrets kept out of status and logs,
 * and nothing written to our stdout.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { UpstreamConfig } from '../src/gateway/config.js';
import { UpstreamManager, type UpstreamManagerOptions } from '../src/gateway/upstreams.js';
import { expectAdapterError, fixtureServer, isAlive, statusOf, waitFor } from './fixtures/servers.js';

const SECRET = 'sk-live-7f3a9c1e5b';
const dir = mkdtempSync(join(tmpdir(), 'toolsearch-faults-'));
const managers: UpstreamManager[] = [];

function track(configs: UpstreamConfig[], opts: UpstreamManagerOptions = {}) {
  const logs: string[] = [];
  const manager = new UpstreamManager(configs, {
    log: (line) => logs.push(line),
    startTimeoutMs: 60_000, // a healthy start never times out under load; failing ones exit at once
    ...opts,
  });
  managers.push(manager);
  return { manager, logs };
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('an upstream that fails to start', () => {
  it('is reported failed (redacted) while the others work', async () => {
    const { manager, logs } = track([
      fixtureServer('broken', ['--fail-start'], { FIXTURE_SECRET: SECRET }),
      fixtureServer('good'),
    ]);
    await manager.start();
    const broken = statusOf(manager, 'broken');
    expect(broken.state).toBe('failed');
    expect(broken.toolCount).toBe(0);
    expect(broken.error).toContain('exited during startup');
    expect(broken.error).toContain('bad credentials ***');
    expect(statusOf(manager, 'good').state).toBe('ready');
    expect(manager.tools().every((t) => t.upstream === 'good')).toBe(true);
    expect(await manager.call('good__echo', { text: 'fine' })).toMatchObject({ content: [{ text: 'fine' }] });

    // A call to it tries one restart at once, fails again, and reports UPSTREAM_DOWN.
    const err = await expectAdapterError(manager.call('broken__echo', { text: 'x' }), 'UPSTREAM_DOWN');
    expect(err.message).toContain('broken');
    expect(statusOf(manager, 'broken').restarts).toBe(1);

    const everything = JSON.stringify([manager.status(), err.message, err.details, logs]);
    expect(everything).not.toContain(SECRET);
    expect(logs.some((line) => line.includes('[broken] fixture: cannot start, bad credentials ***'))).toBe(
      true,
    );
  });

  it('reports a command that does not exist', async () => {
    const { manager } = track([
      { name: 'ghost', command: join(dir, 'no-such-binary') },
      fixtureServer('good'),
    ]);
    await manager.start();
    expect(statusOf(manager, 'ghost')).toMatchObject({ state: 'failed' });
    expect(statusOf(manager, 'ghost').error).toContain('ENOENT');
    expect(statusOf(manager, 'good').state).toBe('ready');
  });

  it('gives up on a server that hangs in initialize after startTimeoutMs', async () => {
    // Alone: under load a healthy server may need more than this short timeout to boot.
    const { manager } = track([fixtureServer('stuck', ['--hang-start'])], { startTimeoutMs: 500 });
    // The message names the configured budget: the default (much longer) one was not used.
    await manager.start();
    expect(statusOf(manager, 'stuck')).toMatchObject({ state: 'failed' });
    expect(statusOf(manager, 'stuck').error).toContain('did not finish starting within 500 ms');
  });
});

describe('an upstream that crashes during a call', () => {
  it('reports UPSTREAM_DOWN, restarts on next use with backoff, and counts restarts', async () => {
    const failFlag = join(dir, 'fail-next-start');
    const { manager, logs } = track(
      [fixtureServer('flaky', ['--fail-if-exists', failFlag]), fixtureServer('steady')],
      // Long enough that the call right after the failed restart falls inside the window even
      // on a loaded machine; the wait below is a lower bound, so it cannot come too early.
      { backoffMs: 1500 },
    );
    await manager.start();
    const firstPid = statusOf(manager, 'flaky').pid!;

    const crash = await expectAdapterError(manager.call('flaky__crash', {}), 'UPSTREAM_DOWN');
    expect(crash.message).toContain('went down during "flaky__crash"');
    expect(statusOf(manager, 'flaky').state).toBe('crashed');
    expect(isAlive(firstPid)).toBe(false);
    expect(await manager.call('steady__echo', { text: 'unaffected' })).toMatchObject({
      content: [{ text: 'unaffected' }],
    });

    // Make the restart fail: the first restart is immediate and fails.
    writeFileSync(failFlag, '');
    await expectAdapterError(manager.call('flaky__echo', { text: 'a' }), 'UPSTREAM_DOWN');
    expect(statusOf(manager, 'flaky')).toMatchObject({ state: 'failed', restarts: 1 });

    // Within the backoff window no new process is started.
    const waiting = await expectAdapterError(manager.call('flaky__echo', { text: 'b' }), 'UPSTREAM_DOWN');
    expect(waiting.message).toMatch(/next restart in \d+ s/);
    expect(statusOf(manager, 'flaky').restarts).toBe(1);

    // After the backoff, the next use restarts it for real.
    rmSync(failFlag);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect(await manager.call('flaky__echo', { text: 'back' })).toMatchObject({
      content: [{ text: 'back' }],
    });
    const status = statusOf(manager, 'flaky');
    expect(status).toMatchObject({ state: 'ready', restarts: 2 });
    expect(status.error).toBeUndefined();
    expect(status.pid).not.toBe(firstPid);
    expect(logs.filter((line) => line.includes('flaky: restarting'))).toHaveLength(2);
  });

  it('tells a slow tool from a hung server: a timed-out call is followed by a ping', async () => {
    const { manager } = track([fixtureServer('frozen')]);
    await manager.start();
    const pid = statusOf(manager, 'frozen').pid!;

    // A slow tool: the server still answers pings, so it stays ready.
    await expectAdapterError(manager.call('frozen__hang', {}, { timeoutMs: 200 }), 'UPSTREAM_TIMEOUT');
    expect(statusOf(manager, 'frozen').state).toBe('ready');

    // A hung process: reported down in status and in the error, stopped, restarted on next use.
    const err = await expectAdapterError(
      manager.call('frozen__freeze', {}, { timeoutMs: 200 }),
      'UPSTREAM_TIMEOUT',
    );
    expect(err.message).toContain('not responding');
    expect(statusOf(manager, 'frozen')).toMatchObject({ state: 'crashed' });
    expect(statusOf(manager, 'frozen').error).toContain('not responding');
    await waitFor(() => !isAlive(pid), 10_000, 'the hung process to be stopped');
    expect(await manager.call('frozen__echo', { text: 'thawed' })).toMatchObject({
      content: [{ text: 'thawed' }],
    });
    expect(statusOf(manager, 'frozen')).toMatchObject({ state: 'ready', restarts: 1 });
  });

  it('stops restarting after maxRestarts consecutive failures', async () => {
    const { manager } = track([fixtureServer('doomed', ['--fail-start'])], { maxRestarts: 2, backoffMs: 10 });
    await manager.start();
    for (let attempt = 0; attempt < 4; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      await expectAdapterError(manager.call('doomed__echo', {}), 'UPSTREAM_DOWN');
    }
    const last = await expectAdapterError(manager.call('doomed__echo', {}), 'UPSTREAM_DOWN');
    expect(last.message).toContain('gave up after 2 restarts');
    expect(statusOf(manager, 'doomed').restarts).toBe(2);
  });

  it('shares one restart between concurrent calls', async () => {
    const { manager } = track([fixtureServer('busy')]);
    await manager.start();
    await expectAdapterError(manager.call('busy__crash', {}), 'UPSTREAM_DOWN');
    const results = await Promise.all([1, 2, 3].map((n) => manager.call('busy__echo', { text: `n${n}` })));
    expect(results.map((r) => r.content)).toEqual([1, 2, 3].map((n) => [{ type: 'text', text: `n${n}` }]));
    expect(statusOf(manager, 'busy').restarts).toBe(1);
  });
});

describe('list_changed during startup', () => {
  it('is not lost: the tool added while the client was listing shows up', async () => {
    const { manager } = track([
      fixtureServer('early', ['--add-during-list', 'early_bird', '--page-size', '3']),
    ]);
    await manager.start();
    await waitFor(
      () => manager.tools().some((t) => t.qualifiedName === 'early__early_bird'),
      5000,
      'the tool added during startup',
    );
    expect(manager.tools().filter((t) => t.name === 'early_bird')).toHaveLength(1);
  });
});

describe('secrets and output', () => {
  it('redacts env values from upstream stderr in logs and writes nothing to stdout', async () => {
    const write = vi.spyOn(process.stdout, 'write');
    try {
      const { manager, logs } = track([
        fixtureServer('chatty', ['--log-secret'], { FIXTURE_SECRET: SECRET }),
      ]);
      await manager.start();
      await manager.call('chatty__crash', {}).catch(() => {});
      await manager.close();
      expect(write).not.toHaveBeenCalled();
      expect(logs.join('\n')).not.toContain(SECRET);
      expect(logs).toContain('[chatty] fixture: using key ***');
      expect(JSON.stringify(manager.status())).not.toContain(SECRET);
    } finally {
      write.mockRestore();
    }
  });

  it('does not report a disabled upstream as running and refuses calls to it', async () => {
    const { manager } = track([{ ...fixtureServer('off'), disabled: true }, fixtureServer('on')]);
    await manager.start();
    expect(statusOf(manager, 'off')).toMatchObject({ state: 'disabled', toolCount: 0 });
    const err = await expectAdapterError(manager.call('off__echo', {}), 'UPSTREAM_DOWN');
    expect(err.message).toContain('disabled');
    expect(existsSync(dir)).toBe(true);
  });

  it('refuses two upstreams with the same name', () => {
    expect(() => new UpstreamManager([fixtureServer('twin'), fixtureServer('twin')])).toThrowError(/twice/);
  });
});
