#!/usr/bin/env node
// `npm start`'s prestart (never postinstall: `npm ci` must work on machines without Electron's CDN).
//  1. Fetches Electron's binary (install-electron).
//  2. Builds an Electron-ABI copy of better-sqlite3 into .electron-native/ (node_modules keeps the
//     Node copy that tests and the CLI use); main passes it to better-sqlite3's nativeBinding option.
//     @electron/rebuild runs with the staging folder as its project root, so it cannot walk up and
//     rebuild the project's own copy, and without npm's nodedir, which would make it build for Node.
//  3. Verifies the ABI of the result from the binary itself, not from the tool's output.
//  4. Generates the demo workspace the first run opens (in the app's userData folder).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const staging = path.join(root, '.electron-native');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);

/** The tool's error without its stack trace: the curator needs the reason, not node's call frames. */
function reasonOf(output) {
  const lines = String(output ?? '')
    .split(/\r?\n/)
    .filter((l) => l.trim() && !/^\s+at\s/.test(l) && !/^\s*(\^|node:internal)/.test(l));
  return lines.slice(-6).join('\n');
}

function fail(step, detail) {
  const reason = reasonOf(detail);
  process.stderr.write(
    `\nprepare-electron: ${step} failed${reason ? `: ${reason.trim()}` : ''}.\n` +
      '\nThe desktop app needs to download Electron and its headers (from GitHub / electronjs.org) the first time.\n' +
      'Without internet access, use browser mode instead:  npm run web\n',
  );
  process.exit(1);
}

/** Runs a tool with its progress on the terminal and its stderr captured, so a failure's stack trace
 *  is not printed before our message (fail() shows the reason without it). */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {
    cwd: root,
    encoding: 'utf8',
    shell: process.platform === 'win32',
    stdio: ['inherit', 'inherit', 'pipe'],
    ...opts,
  });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`;
  // Warnings of a run that worked still reach the terminal.
  if (r.status === 0 && r.stderr) process.stderr.write(r.stderr);
  return { ok: r.status === 0, out };
}

/** NODE_MODULE_VERSION a native addon was built for, read from its exported registration symbol. */
function addonAbi(file) {
  const m = /node_register_module_v(\d+)/.exec(fs.readFileSync(file).toString('latin1'));
  return m ? Number(m[1]) : null;
}

function userDataDir() {
  const name = 'reflection-workbench';
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', name);
  if (process.platform === 'win32') return path.join(process.env.APPDATA || path.join(os.homedir(), 'AppData', 'Roaming'), name);
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), name);
}
function main() {
  const electronPkg = require(path.join(root, 'node_modules', 'electron', 'package.json'));
  const electronVersion = electronPkg.version;
  const expectedAbi = Number(fs.readFileSync(path.join(root, 'node_modules', 'electron', 'abi_version'), 'utf8').trim());

  // 1. Electron's binary.
  process.stdout.write(`prepare-electron: Electron ${electronVersion} (ABI ${expectedAbi})\n`);
  const installed = run(bin('install-electron'), []);
  if (!installed.ok) fail('downloading Electron (install-electron)', installed.out);

  // 2. The Electron copy of better-sqlite3, unless a verified one is already there.
  const sqlitePkg = require(path.join(root, 'node_modules', 'better-sqlite3', 'package.json'));
  const target = path.join(staging, 'node_modules', 'better-sqlite3');
  const addon = path.join(target, 'build', 'Release', 'better_sqlite3.node');
  const stamp = path.join(staging, 'stamp.json');
  const wanted = { electron: electronVersion, betterSqlite3: sqlitePkg.version, abi: expectedAbi };
  const current = fs.existsSync(stamp) ? JSON.parse(fs.readFileSync(stamp, 'utf8')) : null;
  if (!(current && JSON.stringify(current) === JSON.stringify(wanted) && fs.existsSync(addon) && addonAbi(addon) === expectedAbi)) {
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.cpSync(path.join(root, 'node_modules', 'better-sqlite3'), target, {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}build${path.sep}`) && !src.endsWith(`${path.sep}build`),
    });
    // A package.json and a lockfile make the staging folder its own project root for @electron/rebuild.
    fs.writeFileSync(
      path.join(staging, 'package.json'),
      JSON.stringify({ name: 'electron-native', private: true, dependencies: { 'better-sqlite3': sqlitePkg.version } }, null, 2),
    );
    fs.writeFileSync(
      path.join(staging, 'package-lock.json'),
      JSON.stringify({ name: 'electron-native', lockfileVersion: 3, requires: true, packages: {} }, null, 2),
    );
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (/^npm_config_(nodedir|target|runtime|disturl)$/i.test(k)) delete env[k];
    env.npm_config_nodedir = '';
    const rebuilt = run(
      'npx',
      ['--yes', '@electron/rebuild@3', '--version', electronVersion, '--module-dir', staging, '--only', 'better-sqlite3', '--force'],
      {
        cwd: staging,
        env,
      },
    );
    if (!rebuilt.ok) fail('building better-sqlite3 for Electron (@electron/rebuild)', rebuilt.out);
    if (!fs.existsSync(addon)) fail('building better-sqlite3 for Electron', `${addon} was not produced`);
    const abi = addonAbi(addon);
    if (abi !== expectedAbi) {
      fail(
        'verifying the Electron build of better-sqlite3',
        `the addon targets ABI ${abi}, Electron ${electronVersion} needs ${expectedAbi} (Node is ${process.versions.modules})`,
      );
    }
    fs.writeFileSync(stamp, JSON.stringify(wanted, null, 2));
  }
  process.stdout.write(`prepare-electron: better-sqlite3 for Electron ready (ABI ${addonAbi(addon)}) in .electron-native/\n`);

  // 3. The demo workspace of the first run, in Electron's userData folder for this app.
  const demoDir = path.join(userDataDir(), 'demo-workspace');
  if (!fs.existsSync(path.join(demoDir, '.openclaw-reflection', 'reflection.db'))) {
    fs.mkdirSync(demoDir, { recursive: true });
    const made = run(process.execPath, [path.join(root, 'bin', 'reflection.cjs'), 'demo', demoDir]);
    if (!made.ok) fail('generating the demo workspace', made.out);
  }
  process.stdout.write(`prepare-electron: demo workspace at ${demoDir}\n`);
}

if (require.main === module) main();
module.exports = { reasonOf };
