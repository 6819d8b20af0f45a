// Remembers the window's bounds between runs (a small JSON file in userData).
import fs from 'node:fs';
import path from 'node:path';

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1400, height: 900, maximized: false };
const FILE = 'window-state.json';

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export function loadWindowState(stateDir: string): WindowState {
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(stateDir, FILE), 'utf8')) as Partial<WindowState>;
    const width = isInt(raw.width) && raw.width >= 400 && raw.width <= 10_000 ? raw.width : DEFAULT_WINDOW_STATE.width;
    const height = isInt(raw.height) && raw.height >= 300 && raw.height <= 10_000 ? raw.height : DEFAULT_WINDOW_STATE.height;
    const pos = isInt(raw.x) && isInt(raw.y) ? { x: raw.x, y: raw.y } : {};
    return { ...pos, width, height, maximized: raw.maximized === true };
  } catch {
    return { ...DEFAULT_WINDOW_STATE };
  }
}

export function saveWindowState(stateDir: string, state: WindowState): void {
  const file = path.join(stateDir, FILE);
  fs.mkdirSync(stateDir, { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(state));
  fs.renameSync(`${file}.tmp`, file);
}
