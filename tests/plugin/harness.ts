// Drives the real openclaw-reflection plugin from a local checkout of its public source (MIT; see
// README.md here): its real activate(), OpenClaw-shaped hook events, and a mock OpenAI-compatible
// LLM on 127.0.0.1. The plugin's own logger, audit log and file writes produce the input the
// workbench reads. Nothing of the plugin is kept in this repository: the checkout is located at
// run time, and its src/ is copied into a temporary plugin root per test (its logger writes to
// <root>/logs), with node_modules linked from the checkout.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';
import { repoRoot } from '../helpers/workspace';

/** Where the plugin's checkout is: env var first, then a sibling folder beside this repository. */
export function pluginSource(which: 'main' | 'mm'): string | undefined {
  const env = which === 'main' ? process.env.REFLECTION_PLUGIN_SRC : process.env.REFLECTION_PLUGIN_MM_SRC;
  const sibling = path.resolve(repoRoot, '..', which === 'main' ? 'openclaw-reflection' : 'openclaw-reflection-mm');
  for (const dir of [env, sibling]) {
    if (dir && fs.existsSync(path.join(dir, 'src', 'index.ts')) && fs.existsSync(path.join(dir, 'node_modules'))) return path.resolve(dir);
  }
  return undefined;
}

export const MISSING_PLUGIN = (which: 'main' | 'mm') =>
  which === 'main'
    ? 'real-plugin tests skipped: set REFLECTION_PLUGIN_SRC to a checkout of parkgogogo/openclaw-reflection (main, e4d08c9) with its dependencies installed, or put it at ../openclaw-reflection'
    : 'real-plugin tests skipped: set REFLECTION_PLUGIN_MM_SRC to a checkout of parkgogogo/openclaw-reflection branch codex/reflection-memory-management (9f49b96) with its dependencies installed, or put it at ../openclaw-reflection-mm';

// ---------------------------------------------------------------------------------------------
// Mock LLM

export interface GateAnswer {
  decision: 'NO_WRITE' | 'UPDATE_MEMORY' | 'UPDATE_USER' | 'UPDATE_SOUL' | 'UPDATE_IDENTITY' | 'UPDATE_TOOLS';
  reason: string;
  candidate_fact?: string;
}

export interface GateRule {
  answer?: GateAnswer;
  /** Answer with this HTTP status instead (a provider error). */
  status?: number;
  delayMs?: number;
}

export interface GateCall {
  reply: string;
  user: string;
  at: number;
  answer?: GateAnswer;
  status?: number;
}

export interface MockLlmOptions {
  /** The gate's answer for a reply (the "Current agent reply" of the prompt). */
  gate: (reply: string, user: string) => GateRule;
  /** write_guardian: the next content of the target file, or null to finish without writing (refuse). */
  guardian?: (file: string, current: string, fact: string) => string | null;
  /** Consolidation: proposed updates per file. */
  consolidation?: () => Record<string, Array<{ section: string; action: 'add' | 'replace' | 'remove'; content: string }>>;
  guardianDelayMs?: number;
}

export interface MockLlm {
  url: string;
  gateCalls: GateCall[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const completion = (message: Record<string, unknown>) =>
  JSON.stringify({
    id: 'mock',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  });

function section(prompt: string, title: string): string {
  const start = prompt.indexOf(`${title}\n`);
  if (start < 0) return '';
  const rest = prompt.slice(start + title.length + 1);
  const end = rest.indexOf('\n\n');
  return (end < 0 ? rest : rest.slice(0, end)).trim();
}

export async function startMockLlm(options: MockLlmOptions): Promise<MockLlm> {
  const gateCalls: GateCall[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      void answer(JSON.parse(body) as ChatBody).then(
        ({ status, json }) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(json);
        },
        (e) => {
          res.writeHead(500);
          res.end(String(e));
        },
      );
    });
  });
  interface ChatBody {
    messages: Array<{ role: string; content: string | null; tool_calls?: unknown[] }>;
    tools?: unknown[];
    response_format?: { json_schema?: { schema?: { required?: string[] } } };
  }
  async function answer(body: ChatBody): Promise<{ status: number; json: string }> {
    const userPrompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    if (body.tools) return guardianStep(body, userPrompt);
    if (body.response_format?.json_schema?.schema?.required?.includes('proposed_updates')) {
      const updates = options.consolidation?.() ?? {};
      return {
        status: 200,
        json: completion({
          content: JSON.stringify({ decision: Object.keys(updates).length ? 'WRITE_CLEANUP' : 'NO_WRITE', proposed_updates: updates }),
        }),
      };
    }
    const reply = section(userPrompt, 'Current agent reply:');
    const user = section(userPrompt, 'Current user message:');
    const rule = options.gate(reply, user);
    const call: GateCall = { reply, user, at: Date.now(), answer: rule.answer, status: rule.status };
    gateCalls.push(call);
    if (rule.delayMs) await sleep(rule.delayMs);
    if (rule.status) return { status: rule.status, json: JSON.stringify({ error: { message: 'mock provider error', code: rule.status } }) };
    return { status: 200, json: completion({ content: JSON.stringify(rule.answer) }) };
  }
  async function guardianStep(body: ChatBody, userPrompt: string): Promise<{ status: number; json: string }> {
    if (options.guardianDelayMs) await sleep(options.guardianDelayMs);
    const file = /Target file: (\S+)/.exec(userPrompt)?.[1] ?? '';
    const fact = /Candidate fact: (.*)/.exec(userPrompt)?.[1] ?? '';
    const toolResults = body.messages.filter((m) => m.role === 'tool');
    // Step 1: read. Step 2: write or finish. Step 3: finish after the write.
    if (toolResults.length === 0) {
      return {
        status: 200,
        json: completion({ content: null, tool_calls: [{ id: 'r1', type: 'function', function: { name: 'read', arguments: '{}' } }] }),
      };
    }
    if (toolResults.length === 1) {
      const next = options.guardian?.(file, String(toolResults[0]!.content ?? ''), fact) ?? null;
      if (next === null) return { status: 200, json: completion({ content: `${file} already covers this; no change.` }) };
      return {
        status: 200,
        json: completion({
          content: null,
          tool_calls: [{ id: 'w1', type: 'function', function: { name: 'write', arguments: JSON.stringify({ content: next }) } }],
        }),
      };
    }
    return { status: 200, json: completion({ content: 'Updated.' }) };
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    gateCalls,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A guardian that appends the fact as a bullet. */
export const appendFact = (_file: string, current: string, fact: string): string => `${current.replace(/\n*$/, '\n')}- ${fact}\n`;

// ---------------------------------------------------------------------------------------------
// The plugin

type Handler = (event: unknown, context?: unknown) => unknown;

export interface PluginInstance {
  root: string;
  logsDir: string;
  hooks: Map<string, Handler[]>;
  gatewayMethods: Map<string, (args: { params?: unknown; respond: (ok: boolean, payload?: unknown, error?: unknown) => void }) => unknown>;
  tools: Map<string, unknown>;
  /** A user message as OpenClaw's message_received hook delivers it. */
  userMessage(session: TestSession, text: string, messageId: string): void;
  /** An assistant message as OpenClaw's before_message_write hook delivers it (no message id). */
  assistantMessage(session: TestSession, text: string): void;
  /** The plugin module's exports (for code that runs on a schedule, such as consolidation). */
  module: Record<string, unknown>;
  srcDir: string;
}

export interface TestSession {
  channelId: string;
  target: string;
}

export const sessionKeyOf = (s: TestSession) => `channel:${s.channelId}:${s.target}`;

/**
 * A temporary plugin root holding a copy of the checkout's src/, with its dependencies linked.
 * `patch` (a unified diff against the plugin, paths a/src/...) is applied to the copy; `modules`
 * adds packages to its node_modules (name → folder).
 */
export function pluginRoot(source: string, options: { patch?: string; modules?: Record<string, string> } = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-plugin-'));
  fs.cpSync(path.join(source, 'src'), path.join(root, 'src'), { recursive: true });
  const modules = path.join(root, 'node_modules');
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(path.join(source, 'node_modules'))) {
    if (!name.startsWith('.')) fs.symlinkSync(path.join(source, 'node_modules', name), path.join(modules, name), 'dir');
  }
  for (const [name, dir] of Object.entries(options.modules ?? {})) fs.symlinkSync(dir, path.join(modules, name), 'dir');
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'openclaw-reflection-under-test', type: 'module' }));
  if (options.patch) {
    const file = path.join(root, 'recorder.patch');
    fs.writeFileSync(file, options.patch);
    execFileSync('git', ['apply', file], { cwd: root });
  }
  return root;
}

export interface ActivateOptions {
  root: string;
  llmUrl: string;
  /** Omit to leave the plugin without a workspace (write_guardian unavailable). */
  workspaceDir?: string;
  windowSize?: number;
  extraConfig?: Record<string, unknown>;
}

/**
 * Loads the plugin fresh (a new module instance, as after a gateway restart) and calls its
 * activate() with an OpenClaw-like api.
 */
export async function activatePlugin(options: ActivateOptions): Promise<PluginInstance> {
  vi.resetModules();
  const srcDir = path.join(options.root, 'src');
  const mod = (await import(/* @vite-ignore */ path.join(srcDir, 'index.ts'))) as Record<string, unknown>;
  const hooks = new Map<string, Handler[]>();
  const gatewayMethods: PluginInstance['gatewayMethods'] = new Map();
  const tools = new Map<string, unknown>();
  const quiet = () => undefined;
  const api = {
    pluginConfig: {
      ...(options.workspaceDir ? { workspaceDir: options.workspaceDir } : {}),
      logLevel: 'info',
      llm: { baseURL: options.llmUrl, apiKey: 'test-key', model: 'mock/gate-model' },
      memoryGate: { enabled: true, windowSize: options.windowSize ?? 10 },
      consolidation: { enabled: false, schedule: '0 2 * * *' },
      ...options.extraConfig,
    },
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    registerHook: (event: string, handler: Handler) => addHook(event, handler),
    on: (event: string, handler: Handler) => addHook(event, handler),
    registerCommand: () => undefined,
    registerGatewayMethod: (name: string, handler: PluginInstance['gatewayMethods'] extends Map<string, infer H> ? H : never) =>
      gatewayMethods.set(name, handler),
    registerTool: (tool: { name: string }) => tools.set(tool.name, tool),
  };
  function addHook(event: string, handler: Handler) {
    hooks.set(event, [...(hooks.get(event) ?? []), handler]);
  }
  const previousCwd = process.cwd();
  // Without a configured workspace the plugin falls back to the cwd; at the filesystem root it has none.
  if (!options.workspaceDir) process.chdir(path.parse(previousCwd).root);
  try {
    (mod.default as (api: unknown) => void)(api);
  } finally {
    process.chdir(previousCwd);
  }
  const fire = (name: string, event: unknown, context: unknown) => {
    for (const h of hooks.get(name) ?? []) h(event, context);
  };
  return {
    root: options.root,
    logsDir: path.join(options.root, 'logs'),
    hooks,
    gatewayMethods,
    tools,
    module: mod,
    srcDir,
    userMessage(session, text, messageId) {
      fire(
        'message_received',
        {
          from: `${session.channelId}:${session.target}`,
          content: text,
          timestamp: Date.now(),
          metadata: { to: session.target, messageId },
        },
        { channelId: session.channelId, accountId: 'default', conversationId: session.target },
      );
    },
    assistantMessage(session, text) {
      const sessionKey = `agent:main:${session.channelId}:${session.target}`;
      fire(
        'before_message_write',
        { message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: Date.now() }, sessionKey },
        { sessionKey, channelId: session.channelId },
      );
    },
  };
}

/** Waits until the predicate holds (polling), or fails after timeoutMs. */
export async function until(predicate: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** All log lines the plugin wrote so far, parsed. */
export function pluginLogLines(logsDir: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(logsDir)) return [];
  return fs
    .readdirSync(logsDir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .flatMap((f) =>
      fs
        .readFileSync(path.join(logsDir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
}

export const countEvents = (logsDir: string, event: string) => pluginLogLines(logsDir).filter((l) => l.event === event).length;
