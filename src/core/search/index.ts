export { search, SCAN_BOUND, type SearchInput, type SearchResult, type SearchHit, type SearchScope, type SearchField } from './search';
export { parseTextQuery, findMatches, snippet, type TextQuery, type MatchRange, type Snippet } from './fts';
