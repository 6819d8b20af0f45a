// Issue 14 items 13 and 14, tested statically (building needs Electron binaries that cannot be
// downloaded here): the electron-builder config passes electron-builder's own schema validation and
// targets the three platforms with the native rebuild; the afterPack hook flips the fuses the
// security review asked for (run on a stand-in binary carrying Electron's fuse wire); the page's meta
// CSP says what the header CSP says. (The packaged app ignoring ELECTRON_RENDERER_URL: shell.test.ts.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/web/security';
import { repoRoot } from '../helpers/workspace';

const config = JSON.parse(fs.readFileSync(path.join(repoRoot, 'electron-builder.json'), 'utf8')) as Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the afterPack hook is a CommonJS script, loaded as electron-builder loads it
const afterPack = require(path.join(repoRoot, config.afterPack)) as ((ctx: unknown) => Promise<void>) & {
  fuseConfig: (f: unknown) => Record<string, unknown>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the same CommonJS instance the afterPack hook uses
const fuses = require('@electron/fuses') as typeof import('@electron/fuses');

const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';

/** A file laid out like an Electron binary around its fuse wire: sentinel, version 1, 9 fuses all enabled ('1'). */
function standInBinary(file: string): void {
  const wire = Buffer.concat([Buffer.from(SENTINEL), Buffer.from([1, 9]), Buffer.from('111111111')]);
  fs.writeFileSync(file, Buffer.concat([Buffer.alloc(4096, 7), wire, Buffer.alloc(4096, 9)]));
}

describe('packaging', () => {
  it('passes electron-builder schema validation (and a broken config does not)', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- electron-builder's config validator is CommonJS-only internals
    const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- electron-builder's logger is CommonJS-only internals
    const { DebugLogger } = require('builder-util');
    const loaded = await getConfig(repoRoot, 'electron-builder.json', null);
    await expect(validateConfiguration(loaded, new DebugLogger(false))).resolves.toBeUndefined();
    for (const broken of [{ notAnOption: true }, { asar: 'yes' }, { nsis: { oneClick: 'no' } }]) {
      await expect(validateConfiguration({ ...loaded, ...broken }, new DebugLogger(false)), JSON.stringify(broken)).rejects.toThrow(
        /Invalid configuration/,
      );
    }
  });

  it('builds AppImage and deb, dmg and nsis, rebuilds better-sqlite3 for Electron and ships migrations', () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.win.target).toEqual(['nsis']);
    expect(config.npmRebuild).toBe(true);
    expect(config.asar).toBe(true);
    expect(config.asarUnpack.join(' ')).toContain('better-sqlite3');
    expect(config.files).toEqual(expect.arrayContaining(['out/**', 'migrations/*.sql']));
    expect(fs.existsSync(path.join(repoRoot, config.afterPack))).toBe(true);
    const workflow = fs.readFileSync(path.join(repoRoot, '.github', 'workflows', 'package.yml'), 'utf8');
    for (const os of ['ubuntu-latest', 'macos-latest', 'windows-latest']) expect(workflow).toContain(os);
    expect(workflow).toContain('electron-builder --publish never');
  });

  it('the afterPack hook sets the fuses: no RunAsNode, NODE_OPTIONS or inspect; cookie encryption, ASAR integrity, app only from asar', async () => {
    const { FuseV1Options, FuseState, getCurrentFuseWire } = fuses;
    const want = afterPack.fuseConfig(fuses);
    expect(want[FuseV1Options.RunAsNode]).toBe(false);
    expect(want[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false);
    expect(want[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false);
    expect(want[FuseV1Options.EnableCookieEncryption]).toBe(true);
    expect(want[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    expect(want[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);

    const appOutDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-pack-'));
    const binary = path.join(appOutDir, 'reflection-workbench');
    standInBinary(binary);
    await afterPack({
      appOutDir,
      electronPlatformName: 'linux',
      arch: 1,
      packager: { appInfo: { productFilename: 'Reflection Workbench' }, executableName: 'reflection-workbench' },
    });
    const wire = await getCurrentFuseWire(binary);
    expect(wire[FuseV1Options.RunAsNode]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(FuseState.ENABLE);
    fs.rmSync(appOutDir, { recursive: true, force: true });
  });

  it('the page meta CSP is the header CSP (minus frame-ancestors, which a meta tag cannot carry)', () => {
    const html = fs.readFileSync(path.join(repoRoot, 'src', 'renderer', 'index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    const directives = (csp: string) =>
      csp
        .split(';')
        .map((d) => d.trim())
        .filter((d) => d && !d.startsWith('frame-ancestors'))
        .sort();
    expect(meta).toBeDefined();
    expect(directives(meta!)).toEqual(directives(CONTENT_SECURITY_POLICY));
  });
});
