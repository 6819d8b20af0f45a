import { describe, expect, it } from 'vitest';
import { openRecorder } from '../../src/recorder';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { healthSummary } from '../../src/core/health/summary';
import { flagsForAudits, rescanAllWrites } from '../../src/core/health/secrets';
import { tempWorkspace } from '../helpers/workspace';

describe('secrets in writes as they arrive', () => {
  it('flags a write that stores a key or an email through the public recorder before anything lists it, with kinds only', async () => {
    const dir = tempWorkspace();
    const rec = openRecorder({ workspaceDir: dir });
    const key = 'sk-proj-123456Ab9xQ12345678Zt7LmN123456';
    const secret = await rec.recordWrite({
      targetFile: 'TOOLS.md',
      before: '# TOOLS\n',
      after: `# TOOLS\n- OpenAI key for the build box: ${key}\n`,
      status: 'written',
      source: 'retry',
      createdAt: 1000,
    });
    const email = await rec.recordWrite({
      targetFile: 'USER.md',
      before: '# USER\n',
      after: '# USER\n- Work email: ana.lima@example.com\n',
      status: 'written',
      source: 'retry',
      createdAt: 2000,
    });
    const clean = await rec.recordWrite({
      targetFile: 'SOUL.md',
      before: '# SOUL\n',
      after: '# SOUL\n- Be direct.\n',
      status: 'written',
      source: 'retry',
      createdAt: 3000,
    });
    // Removing a line that held a key adds nothing sensitive: not flagged.
    const removal = await rec.recordWrite({
      targetFile: 'TOOLS.md',
      before: `# TOOLS\n- OpenAI key for the build box: ${key}\n`,
      after: '# TOOLS\n',
      status: 'written',
      source: 'retry',
      createdAt: 4000,
    });
    rec.close();
    const { db } = openWorkspaceDatabase(dir);
    const flags = flagsForAudits(db, [secret.auditId, email.auditId, clean.auditId, removal.auditId]);
    expect(flags.get(secret.auditId)?.kinds).toContain('API_KEY');
    expect(flags.get(email.auditId)?.kinds).toEqual(['EMAIL']);
    expect(flags.has(clean.auditId)).toBe(false);
    expect(flags.has(removal.auditId)).toBe(false);
    expect(JSON.stringify(db.prepare('SELECT * FROM audit_secret_flags').all())).not.toContain(key);
    const summary = healthSummary({ db, workspaceDir: dir });
    expect(summary).toMatchObject({ flaggedWrites: 2, flaggedSecretWrites: 1 });
    // A rescan (after the detector improved) reads every write again.
    db.prepare('DELETE FROM audit_secret_flags').run();
    expect(rescanAllWrites(db)).toBe(4);
    expect(flagsForAudits(db, [secret.auditId]).get(secret.auditId)?.kinds).toContain('API_KEY');
    db.close();
  });
});
