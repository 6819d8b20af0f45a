// A ceiling on the heap of long dataset jobs, collection and export (issue 16: peak RSS < 250 MB). Both read
// pages that live long enough for V8 to promote them to its old generation, where they die: every page of
// decisions collection reads lives for seconds, an export's pages live across the awaits that drain its
// files. V8 runs a full collection only once the old generation has grown to a multiple of what was live
// after the last one: at 300,000 decisions collection's heap reached 133 MB between collections for 50 MB
// live, which took peak RSS to 304 MB. Running a full collection whenever the heap has grown a headroom past
// what the last one left keeps the garbage bounded: collection's peak RSS 309 -> 254 MB at 1,000,000
// decisions, for about 3% more CPU (1,000 -> 1,035 µs per decision; 860 -> 889 at 100,000). An export's
// live heap is smaller and its pages larger: it passes a larger headroom (exportWrite.ts).
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

  /** headroom: the growth that triggers a collection (bytes). */
  constructor(private readonly headroom = HEADROOM_BYTES) {
    this.limit = v8.getHeapStatistics().used_heap_size + headroom;
  }

  /** Runs a full collection when the heap has grown the headroom past the last one's live heap. */
  check(): void {
    if (v8.getHeapStatistics().used_heap_size >= this.limit) this.collect();
  }

  /** Runs a full collection now, and measures the headroom from what it leaves. */
  collect(): void {
    fullCollection()();
    this.limit = v8.getHeapStatistics().used_heap_size + this.headroom;
  }
}
