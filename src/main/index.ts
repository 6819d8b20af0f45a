// The Electron shell. Placeholder until the desktop-app work lands: it must stay thin.
export {};
