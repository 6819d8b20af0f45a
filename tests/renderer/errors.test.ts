// The renderer decides on an error's kind, never on its message: a job the curator stops arrives as
// kind Cancelled through the real registry, and a Conflict that merely mentions "cancelled" is a failure.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { ApiError, IpcClient } from '../../src/renderer/src/api/client';
import { isCancelled, readableError } from '../../src/renderer/src/lib/errors';
import { generateDemoWorkspace } from '../../src/core/demo';
import { tempWorkspace } from '../helpers/workspace';

describe('renderer errors', () => {
  let runtime: AppRuntime;
  let stateDir: string;

  beforeAll(() => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 3 });
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
    runtime = createAppRuntime({ mode: 'electron', stateDir, log: { warn: () => undefined } });
    runtime.session.open(dir);
  });
  afterAll(async () => {
    await runtime.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('treats kind Cancelled (and a page-side abort) as cancelled, and nothing else', () => {
    expect(isCancelled(new ApiError('Cancelled', 'dataset.collect cancelled', 'dataset.collect'))).toBe(true);
    expect(isCancelled({ kind: 'Cancelled', message: '' })).toBe(true);
    expect(isCancelled(new DOMException('stop', 'AbortError'))).toBe(true);
    // the message no longer decides: these are failures the curator must see
    expect(isCancelled(new ApiError('Conflict', 'export cancelled', 'dataset.export'))).toBe(false);
    expect(isCancelled(new Error('the request was aborted'))).toBe(false);
    expect(readableError('Collect', new ApiError('Cancelled', '', 'dataset.collect'))).toEqual({
      action: 'Collect',
      kind: 'Cancelled',
      message: 'cancelled',
    });
  });

  it('a job aborted through the client rejects with kind Cancelled, end to end over the registry', async () => {
    const client = new IpcClient({
      invoke: (channel, input) => runtime.registry.dispatch(channel, input),
      onChange: (cb) => runtime.session.onChange(cb),
    });
    const ctrl = new AbortController();
    const pending = client.runJob('dataset.collect', { type: 'all', autoApprove: false, dryRun: false }, { signal: ctrl.signal });
    ctrl.abort();
    const err = await pending.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ kind: 'Cancelled', channel: 'dataset.collect', message: 'dataset.collect cancelled' });
    expect(isCancelled(err)).toBe(true);
    const [job] = runtime.jobs.list();
    expect(job).toMatchObject({ channel: 'dataset.collect', state: 'cancelled', error: { kind: 'Cancelled' } });
  });
});
