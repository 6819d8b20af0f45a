import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadSettings, saveSettings, settingsPath } from '../../src/core/lifecycle/settings';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

function writeSettings(dir: string, text: string): void {
  fs.mkdirSync(path.dirname(settingsPath(dir)), { recursive: true });
  fs.writeFileSync(settingsPath(dir), text);
}

describe('workspace settings', () => {
  it('gives the seed defaults when no file exists', () => {
    const { settings, warnings, exists } = loadSettings(tempWorkspace());
    expect(exists).toBe(false);
    expect(warnings).toEqual([]);
    expect(settings.storage.busyTimeoutMs).toBe(5000);
    expect(settings.storage.jsonlExport).toEqual({ enabled: false, retentionDays: 30 });
    expect(settings.storage.retentionDays).toBeUndefined();
    expect(settings.writeGuardianAuditing.maxSnapshotsPerFile).toBe(100);
    expect(settings.memoryGateAuditing.storeRawLLMResponse).toBe(true);
    expect(settings.liveCapture.auditMatchWindowMs).toBe(5000);
    expect(settings.datasetCollection.positiveCriteria.minQualityScore).toBe(0.7);
    expect(settings.datasetCollection.qualityScoring.weights.conversationClarity).toBe(0.4);
  });

  it('validates the dataset collection section with the dataset schema, leaf by leaf', () => {
    const dir = tempWorkspace();
    writeSettings(
      dir,
      JSON.stringify({ datasetCollection: { autoCollect: false, positiveCriteria: { minQualityScore: 1.5, notRolledBackWithinDays: 3 } } }),
    );
    const { settings, warnings } = loadSettings(dir);
    expect(warnings).toEqual(['datasetCollection.positiveCriteria.minQualityScore: must be at most 1']);
    expect(settings.datasetCollection.autoCollect).toBe(false);
    expect(settings.datasetCollection.positiveCriteria.minQualityScore).toBe(0.7);
    expect(settings.datasetCollection.positiveCriteria.notRolledBackWithinDays).toBe(3);
  });

  it('names a bad value, keeps its default and keeps the valid values beside it', () => {
    const dir = tempWorkspace();
    writeSettings(
      dir,
      JSON.stringify({
        storage: {
          busyTimeoutMs: 'slow',
          cacheSizePages: -4000,
          retentionDays: -3,
          jsonlExport: { enabled: true, schedule: 'every day', retentionDays: 7 },
        },
        writeGuardianAuditing: { maxSnapshotsPerFile: 20, enableRollback: 'yes' },
        pluginRoot: '/plugins/reflection',
        colour: 'blue',
      }),
    );
    const { settings, warnings } = loadSettings(dir);
    expect(warnings).toContain('storage.busyTimeoutMs: expected a number');
    expect(warnings).toContain('storage.retentionDays: must be greater than 0');
    expect(warnings).toContain('writeGuardianAuditing.enableRollback: expected a boolean');
    expect(warnings).toContain('colour: unknown setting, ignored');
    expect(warnings.some((w) => w.startsWith('storage.jsonlExport.schedule: not a valid cron expression'))).toBe(true);
    expect(settings.storage.busyTimeoutMs).toBe(5000);
    expect(settings.storage.cacheSizePages).toBe(-4000);
    expect(settings.storage.retentionDays).toBeUndefined();
    expect(settings.storage.jsonlExport).toEqual({ enabled: true, retentionDays: 7 });
    expect(settings.writeGuardianAuditing).toEqual({
      enabled: true,
      storeFileSnapshots: true,
      enableRollback: true,
      maxSnapshotsPerFile: 20,
    });
    expect(settings.pluginRoot).toBe('/plugins/reflection');
  });

  it('falls back to all defaults with a warning on malformed JSON', () => {
    const dir = tempWorkspace();
    writeSettings(dir, '{ "storage": { "retentionDays": 30 ');
    const { settings, warnings } = loadSettings(dir);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/workbench\.json: not valid JSON/);
    expect(settings.storage.retentionDays).toBeUndefined();
  });

  it('saves a patch atomically, merging with what is stored, and refuses an invalid one', () => {
    const dir = tempWorkspace();
    saveSettings(dir, { storage: { retentionDays: 90 } });
    saveSettings(dir, { storage: { jsonlExport: { enabled: true, schedule: '0 3 * * *' } } });
    const { settings } = loadSettings(dir);
    expect(settings.storage.retentionDays).toBe(90);
    expect(settings.storage.jsonlExport).toEqual({ enabled: true, schedule: '0 3 * * *', retentionDays: 30 });
    expect(() => saveSettings(dir, { storage: { busyTimeoutMs: 'x' } })).toThrow('storage.busyTimeoutMs: expected a number');
    expect(() => saveSettings(dir, { storage: { jsonlExport: { schedule: 'nope' } } })).toThrow(
      /storage\.jsonlExport\.schedule: not a valid cron/,
    );
    expect(() => saveSettings(dir, { stroage: {} })).toThrow(/stroage: unknown setting/);
    expect(loadSettings(dir).settings.storage.busyTimeoutMs).toBe(5000);
    saveSettings(dir, { storage: { retentionDays: null } });
    expect(loadSettings(dir).settings.storage.retentionDays).toBeUndefined();
  });

  it('works from the CLI: set, get, validate', () => {
    const dir = tempWorkspace();
    const cli = path.join(repoRoot, 'bin', 'reflection.cjs');
    execFileSync('node', [cli, 'settings', 'set', 'storage.retentionDays', '45', '--workspace', dir]);
    const got = execFileSync('node', [cli, 'settings', 'get', 'storage.retentionDays', '--workspace', dir], { encoding: 'utf8' });
    expect(got.trim()).toBe('45');
    const bad = spawnSync('node', [cli, 'settings', 'set', 'storage.walMode', '"maybe"', '--workspace', dir], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('storage.walMode: expected a boolean');
    writeSettings(dir, JSON.stringify({ storage: { mmapSizeMB: 'big' } }));
    const v = spawnSync('node', [cli, 'settings', 'validate', '--workspace', dir], { encoding: 'utf8' });
    expect(v.status).toBe(2);
    expect(v.stderr).toContain('storage.mmapSizeMB: expected a number');
  }, 60_000);
});
