// Collection's heap ceiling (issue 16, peak RSS): garbage past the headroom is collected at the next
// check, and a check below it costs no collection.
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { HeapCeiling } from '../../src/core/dataset/heapCeiling';

const used = () => v8.getHeapStatistics().used_heap_size;

/** Objects that survive long enough to be promoted, then become garbage together. */
function promotedGarbage(mb: number): void {
  let keep: number[][] = [];
  for (let i = 0; i < mb * 16; i++) keep.push(Array.from({ length: 8192 }, (_, j) => j + i + 0.5));
  keep = [];
  void keep;
}

describe('collection heap ceiling', () => {
  it('collects once the heap has grown past its headroom, and not before', () => {
    const ceiling = new HeapCeiling();
    const start = used();
    ceiling.check(); // nothing has grown: no collection, nothing freed
    expect(used()).toBeGreaterThanOrEqual(start - 2 * 1024 * 1024);
    promotedGarbage(64);
    const grown = used();
    expect(grown - start).toBeGreaterThan(32 * 1024 * 1024);
    ceiling.check();
    // the 64 MB of dead arrays are gone at once, not at V8's next full collection
    expect(used()).toBeLessThan(grown - 32 * 1024 * 1024);
  });
});
