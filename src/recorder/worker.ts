// The recorder's writer thread: owns the database connection, so a busy lock (another writer holding
// the database for seconds) blocks this thread and never the gateway's event loop. Events arrive in
// batches, are written in one transaction per batch, retried while the database is busy, and
// acknowledged by sequence number. Spools left by a crashed process are replayed first.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { STATE_DIR, openWorkspaceDatabase, writeTx } from '../core/db/connection';
import { RecorderCore } from '../core/recorder/recorder';
import { applyEvent } from './events';
import { SPOOL_PATTERN, type RecoveryReport, type ToWorker } from './protocol';

interface Data {
  workspaceDir: string;
  nativeBinding?: string;
}

const data = workerData as Data;
const port = parentPort!;
const { db } = openWorkspaceDatabase(data.workspaceDir, { nativeBinding: data.nativeBinding });
const core = new RecorderCore(db);
const queue: Array<{ seq: number; event: unknown }> = [];
let closing = false;
let working = false;

const isBusy = (e: unknown) =>
  /SQLITE_BUSY|SQLITE_LOCKED|database is locked/.test(String((e as { code?: string }).code ?? '') + String((e as Error).message));

/** Writes a batch; a bad event fails alone (savepoint), a busy database fails the whole batch for a retry. */
function writeBatch(items: Array<{ seq: number; event: unknown }>): Array<{ seq: number; message: string }> {
  const failed: Array<{ seq: number; message: string }> = [];
  const one = db.transaction((event: unknown) => applyEvent(core, event));
  writeTx(db, () => {
    for (const item of items) {
      try {
        one(item.event);
      } catch (e) {
        if (isBusy(e)) throw e;
        failed.push({ seq: item.seq, message: (e as Error).message });
      }
    }
  });
  return failed;
}

function replaySpools(): RecoveryReport {
  const dir = path.join(data.workspaceDir, STATE_DIR);
  const report: RecoveryReport = { spoolFiles: 0, replayed: 0, alreadyRecorded: 0, droppedBeforeCrash: 0, failed: 0 };
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => SPOOL_PATTERN.test(n));
  } catch {
    return report;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    report.spoolFiles++;
    writeTx(db, () => {
      for (const line of lines) {
        const entry = JSON.parse(line) as { header?: { dropped: number }; event?: unknown };
        if (entry.header) report.droppedBeforeCrash += entry.header.dropped;
        else if (entry.event) {
          try {
            if (db.transaction(() => applyEvent(core, entry.event))()) report.replayed++;
            else report.alreadyRecorded++;
          } catch {
            report.failed++;
          }
        }
      }
    });
    fs.rmSync(file, { force: true });
  }
  return report;
}

function pump(): void {
  if (working) return;
  working = true;
  const step = () => {
    if (!queue.length) {
      working = false;
      if (closing) finish();
      return;
    }
    const items = queue.slice(0, 500);
    const upTo = items[items.length - 1]!.seq; // the queue is not empty here
    try {
      const failed = writeBatch(items);
      queue.splice(0, items.length);
      port.postMessage({ type: 'ack', upTo, count: items.length, failed });
      setImmediate(step);
    } catch (e) {
      if (isBusy(e)) {
        setTimeout(step, 25); // the lock holder finishes; nothing is dropped
        return;
      }
      queue.splice(0, items.length);
      port.postMessage({
        type: 'ack',
        upTo,
        count: items.length,
        failed: items.map((i) => ({ seq: i.seq, message: (e as Error).message })),
      });
      setImmediate(step);
    }
  };
  step();
}

function finish(): void {
  db.close();
  port.postMessage({ type: 'closed' });
  port.close();
}

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'events') {
    queue.push(...msg.items);
    pump();
  } else if (msg.type === 'close') {
    closing = true;
    if (!working) pump();
  }
});

port.postMessage({ type: 'ready', recovered: replaySpools() });
