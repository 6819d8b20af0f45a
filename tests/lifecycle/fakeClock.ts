import type { Clock } from '../../src/core/lifecycle/state';

/** A clock the test moves by hand: timers fire in time order as it advances, and no real time passes. */
export class FakeClock implements Clock {
  private timers: { id: number; at: number; fn: () => void }[] = [];
  private nextId = 1;
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ id, at: this.t + Math.max(0, ms), fn });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  pending(): number {
    return this.timers.length;
  }
  /** Moves to `to`, firing each due timer at its own time and letting async work settle after each. */
  async advanceTo(to: number, settle: () => Promise<void> = async () => undefined): Promise<void> {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const due = this.timers[0];
      if (!due || due.at > to) break;
      this.timers.shift();
      this.t = due.at;
      due.fn();
      await settle();
    }
    this.t = to;
  }
}
