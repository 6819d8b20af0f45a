// Fault injection for the crash tests: REFLECTION_FAULT=<step> kills the process with SIGKILL at
// that step, as a power cut would (no exit handlers run, locks are left behind to go stale).
export const FAULT_STEPS = ['lock-acquired', 'intent-recorded', 'file-written', 'committed'] as const;
export type FaultStep = (typeof FAULT_STEPS)[number];

export function faultPoint(step: FaultStep): void {
  if (process.env.REFLECTION_FAULT === step) process.kill(process.pid, 'SIGKILL');
}
