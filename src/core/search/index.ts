export { search, SCAN_BOUND, type SearchInput } from './search';
export { parseTextQuery, findMatches, snippet, type TextQuery, type MatchRange, type Snippet } from './fts';
