/** A keyset-paged list: pass nextCursor back as `cursor` for the next page; null = no more rows. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** Total rows matching the filter, when the service can count them cheaply. */
  total?: number;
}
