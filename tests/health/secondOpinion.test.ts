import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { listFindings, scanMemoryHealth } from '../../src/core/health/findings';
import { secondOpinionConfig, secondOpinions } from '../../src/core/health/secondOpinion';
import { tempWorkspace } from '../helpers/workspace';

// A local OpenAI-compatible endpoint: calls lines mentioning a phone a contradiction, anything else none.
const seen: Array<{ auth?: string; body: { model: string; messages: Array<{ content: string }> } }> = [];
let server: http.Server;
let baseUrl = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const body = JSON.parse(data);
      seen.push({ auth: req.headers.authorization, body });
      const lines = body.messages[1].content as string;
      if (/Nova/.test(lines)) return void res.writeHead(500).end('boom');
      const verdict = /phone/.test(lines) ? 'contradiction' : 'none';
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { content: `Sure: {"verdict": "${verdict}", "reason": "checked"}` } }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => server.close());

describe('second opinion from an OpenAI-compatible endpoint', () => {
  it('is off by default and names the setting', async () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir);
    const { db } = openWorkspaceDatabase(dir);
    expect(secondOpinionConfig(dir).enabled).toBe(false);
    await expect(secondOpinions({ db, workspaceDir: dir })).rejects.toThrow(/memoryHealth\.secondOpinion\.enabled/);
    db.close();
  });

  it('stores each verdict on its finding, and an endpoint error as an error', async () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir);
    const settings = path.join(dir, '.openclaw-reflection', 'workbench.json');
    fs.writeFileSync(
      settings,
      JSON.stringify({ memoryHealth: { secondOpinion: { enabled: true, baseUrl, model: 'mock-1', apiKeyEnv: 'HEALTH_TEST_KEY' } } }),
    );
    process.env.HEALTH_TEST_KEY = 'k-123';
    const { db } = openWorkspaceDatabase(dir);
    const ctx = { db, workspaceDir: dir };
    scanMemoryHealth(ctx);
    const answered = await secondOpinions(ctx);
    expect(answered.length).toBeGreaterThan(2);
    expect(seen.at(-1)).toMatchObject({ auth: 'Bearer k-123', body: { model: 'mock-1' } });
    const stored = listFindings(ctx, { status: 'open' });
    const phone = stored.find((f) => f.attribute === 'phone')!;
    expect(phone.detail.secondOpinion).toEqual({ verdict: 'contradiction', reason: 'checked', model: 'mock-1' });
    expect(stored.find((f) => f.kind === 'contradiction' && f.attribute === 'preference')?.detail.secondOpinion).toMatchObject({
      verdict: 'none',
    });
    expect(stored.find((f) => f.detail.lines.some((l) => /Nova/.test(l.text)))?.detail.secondOpinion).toMatchObject({
      error: expect.stringMatching(/HTTP 500/),
    });
    expect(stored.filter((f) => f.kind === 'secret').every((f) => !f.detail.secondOpinion)).toBe(true);
    db.close();
  });
});
