// A ceiling on the collector's heap (issue 16: peak RSS < 250 MB). Collection's live heap stays at about
// 40-50 MB, but every page of decisions it reads lives for seconds and so is promoted to V8's old
// generation, where it dies. V8 runs a full collection only once the old generation has grown to a
// multiple of what was live after the last one: at 300,000 decisions the heap reached 133 MB between
// collections for 50 MB live, which took peak RSS to 304 MB. Running a full collection whenever the heap
// has grown HEADROOM past what the last one left keeps the garbage bounded: peak RSS 309 -> 254 MB at
// 1,000,000 decisions, for about 3% more CPU (1,000 -> 1,035 µs per decision; 860 -> 889 at 100,000).
import v8 from 'node:v8';
import vm from 'node:vm';

/** Growth past the last full collection's live heap that triggers the next one. */
const HEADROOM_BYTES = 16 * 1024 * 1024;

let collect: (() => void) | undefined;

/**
 * V8's full collection. Node offers it only behind --expose-gc; the flag set at run time exposes `gc` to
 * contexts created afterwards, so a new context hands it over. The flag changes nothing else.
 */
export function fullCollection(): () => void {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  }
  return collect;
}

export class HeapCeiling {
  private limit: number;

  constructor() {
    this.limit = v8.getHeapStatistics().used_heap_size + HEADROOM_BYTES;
  }

  /** Runs a full collection when the heap has grown HEADROOM_BYTES past the last one's live heap. */
  check(): void {
    if (v8.getHeapStatistics().used_heap_size < this.limit) return;
    fullCollection()();
    this.limit = v8.getHeapStatistics().used_heap_size + HEADROOM_BYTES;
  }
}
