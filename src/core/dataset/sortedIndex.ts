/** Where x is or would go in an ascending list: the first index whose value is not below x (binary search). */
export function sortedIndex<T extends string | number>(list: ArrayLike<T>, x: T): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < x)
      lo = mid + 1; // mid < hi <= length
    else hi = mid;
  }
  return lo;
}
