// The application menu: File > Open Workspace, Open Recent, Backup. Built from plain templates so
// the shell test can read it.
import type { MenuItemConstructorOptions } from 'electron';
import type { RecentWorkspace } from '../shared/contract';

export interface MenuActions {
  openWorkspace(): void;
  openRecent(dir: string): void;
  backup(): void;
  recent(): RecentWorkspace[];
  isMac: boolean;
}

export function menuTemplate(actions: MenuActions): MenuItemConstructorOptions[] {
  const recent = actions.recent().filter((r) => r.exists);
  return [
    ...(actions.isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Workspace…', accelerator: 'CmdOrCtrl+O', click: () => actions.openWorkspace() },
        {
          label: 'Open Recent',
          submenu: recent.length
            ? recent.map((r) => ({ label: `${r.name} — ${r.dir}`, click: () => actions.openRecent(r.dir) }))
            : [{ label: 'No recent workspaces', enabled: false }],
        },
        { type: 'separator' },
        { label: 'Backup Database…', click: () => actions.backup() },
        { type: 'separator' },
        actions.isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
}
