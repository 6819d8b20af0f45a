// A stand-in for the running Reflection plugin: it appends log lines and rewrites memory files the
// way the plugin does (proper-lockfile lock with realpath:false, write, audit line, unlock, then the
// MessageHandler outcome line), and reports every write it made on stdout as JSON lines.
// Usage: node pluginStandIn.cjs <config.json>
const fs = require('node:fs');
const path = require('node:path');
const lockfile = require('proper-lockfile');

const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { pluginRoot, workspace, turns, rollAt = -1, restartAt = -1, externalAt = -1, pauseMs = [40, 80], ratePerSecond } = cfg;
const FILES = ['USER.md', 'MEMORY.md', 'TOOLS.md', 'SOUL.md', 'IDENTITY.md'];
const logsDir = path.join(pluginRoot, 'logs');
const stateDir = path.join(workspace, '.openclaw-reflection');
fs.mkdirSync(logsDir, { recursive: true });
fs.mkdirSync(stateDir, { recursive: true });
let logFile = path.join(logsDir, 'reflection-2026-03-10.log');
const guardianLog = path.join(stateDir, 'write-guardian.log.jsonl');

const report = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
const iso = () => new Date().toISOString();
const log = (component, event, details, sessionKey) => {
  const line = { timestamp: iso(), level: 'info', component, event };
  if (details) line.details = details;
  if (sessionKey) line.sessionKey = sessionKey;
  fs.appendFileSync(logFile, `${JSON.stringify(line)}\n`);
  return Date.parse(line.timestamp);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pause = () => sleep(pauseMs[0] + Math.floor(Math.random() * (pauseMs[1] - pauseMs[0] + 1)));

function start() {
  log('PluginLifecycle', 'Plugin starting');
  log('PluginLifecycle', 'Configuration loaded', { llm: { model: 'stand-in-model' }, memoryGate: { enabled: true, windowSize: 10 } });
}

async function write(i, sessionKey, file, status) {
  const decision = `UPDATE_${file.replace('.md', '')}`;
  const fact = `fact ${i}`;
  const target = path.join(workspace, file);
  if (status === 'written') {
    const release = await lockfile.lock(target, { realpath: false, stale: 5000, retries: { retries: 20, minTimeout: 5 } });
    const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    const after = `${before ?? `# ${file}\n`}- ${fact}\n`;
    fs.writeFileSync(target, after);
    fs.appendFileSync(guardianLog, `${JSON.stringify({ timestamp: iso(), decision, targetFile: file, status, candidateFact: fact })}\n`);
    await release();
    log('WriteGuardian', 'write_guardian rewrote target file', { decision, filePath: target });
    const at = log('MessageHandler', 'write_guardian applied update', { decision }, sessionKey);
    report({ type: 'write', i, file, before, after, fact, at });
  } else {
    fs.appendFileSync(
      guardianLog,
      `${JSON.stringify({ timestamp: iso(), decision, targetFile: file, status: 'refused', reason: 'already known', candidateFact: fact })}\n`,
    );
    log('WriteGuardian', 'write_guardian refused update', { decision, filePath: target, reason: 'already known' });
    log('MessageHandler', 'write_guardian refused update', { decision, reason: 'already known' }, sessionKey);
    report({ type: 'refused', i, file, fact });
  }
}

async function main() {
  start();
  let writes = 0;
  const t0 = Date.now();
  for (let i = 0; i < turns; i++) {
    if (i === rollAt) {
      logFile = path.join(logsDir, 'reflection-2026-03-11.log'); // the UTC-midnight roll-over
      report({ type: 'rolled', i });
    }
    if (i === restartAt) {
      start();
      report({ type: 'restarted', i });
    }
    const sessionKey = `channel:discord:channel:${100 + (i % 3)}`;
    const id = String(i).padStart(6, '0');
    const snap = (role, message) => ({
      hookName: role === 'user' ? 'message:received' : 'before_message_write',
      bufferMessage: {
        id: `SI${id}${role === 'user' ? 'U' : 'A'}`,
        role,
        message,
        timestamp: Date.now(),
        sessionKey,
        channelId: 'discord',
        metadata: role === 'user' ? { accountId: 'default' } : {},
      },
    });
    log('MessageHandler', 'Buffer message snapshot', snap('user', `user message ${i}`), sessionKey);
    log('MessageHandler', 'Buffer message snapshot', snap('agent', `agent reply ${i}`), sessionKey);
    const kind = i % 4;
    const file = FILES[writes % FILES.length];
    const decision = kind === 0 ? 'NO_WRITE' : `UPDATE_${file.replace('.md', '')}`;
    log('memory_gate', 'memory_gate decision generated', { decision, reason: `reason ${i}`, hasCandidateFact: kind !== 0 });
    const decidedAt = log(
      'MessageHandler',
      'memory_gate decision evaluated',
      { decision, reason: `reason ${i}`, hasCandidateFact: kind !== 0 },
      sessionKey,
    );
    report({ type: 'decision', i, decision, at: decidedAt });
    if (kind === 1 || kind === 2) {
      await write(i, sessionKey, file, 'written');
      writes++;
    } else if (kind === 3) {
      await write(i, sessionKey, file, 'refused');
    }
    if (i === externalAt) {
      // A manual edit: no lock, no audit line. The file least recently written by the plugin.
      const target = path.join(workspace, FILES[(writes + 1) % FILES.length]);
      const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
      const after = `${before ?? ''}- manual note\n`;
      fs.writeFileSync(target, after);
      report({ type: 'external', i, file: path.basename(target), before, after });
      await sleep(300);
    }
    report({ type: 'progress', i });
    if (ratePerSecond) {
      const due = t0 + ((i + 1) * 1000) / ratePerSecond;
      if (due > Date.now()) await sleep(due - Date.now());
    } else await pause();
  }
  report({ type: 'done', writes });
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
