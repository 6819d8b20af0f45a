// The diff and hash helpers live in src/main/text so the database layer and the recorder can use them
// without importing the domain; this path stays for the services that already import it.
export { diffFile, linePatch, sha256, type TextDiff } from '../text/diff';
