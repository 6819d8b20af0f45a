import { describe, expect, it } from 'vitest';
import { comparePair, findConflicts, isFactLine } from '../../src/core/health/conflicts';

const lines = (file: string, text: string) => text.split('\n').map((t, i) => ({ fileName: file, line: i + 1, text: t }));

describe('contradiction and duplicate finder', () => {
  it('groups contradictions across files and transitively, and keeps compatible lines out', () => {
    const groups = findConflicts([
      ...lines(
        'USER.md',
        '# USER\n\n## Learned\n- User lives in Berlin.\n- User prefers green tea in the morning.\n- User lives in Lisbon.',
      ),
      ...lines(
        'MEMORY.md',
        '## Facts\n- User lives in Toronto.\n- Helios standup happens every Thursday at 9:30.\n- Quartz standup happens every Wednesday at 9:30.',
      ),
    ]);
    const location = groups.filter((g) => g.kind === 'contradiction' && g.attribute === 'location');
    expect(location).toHaveLength(1);
    expect(location[0]!.lines.map((l) => `${l.fileName}:${l.line}`).sort()).toEqual(['MEMORY.md:2', 'USER.md:4', 'USER.md:6']);
    expect(location[0]!.values.flat().sort()).toEqual(['Berlin', 'Lisbon', 'Toronto']);
    expect(groups.some((g) => g.lines.some((l) => /standup/.test(l.text)))).toBe(false);
  });

  it('reports repeated facts in English and Chinese and names the differing values', () => {
    expect(comparePair('- User prefers green tea.', '- The user prefers green tea.')?.kind).toBe('duplicate');
    expect(comparePair('- 用户现居苏州。', '- 用户现居苏州')?.kind).toBe('duplicate');
    expect(comparePair('- 用户手机号：13812345678', '- 用户手机号：13998765432')).toMatchObject({
      kind: 'contradiction',
      attribute: 'phone',
      values: [['13812345678'], ['13998765432']],
    });
    expect(comparePair('- User uses the Europe/Berlin time zone.', '- User uses the America/Chicago time zone.')).toMatchObject({
      kind: 'contradiction',
      attribute: 'time zone',
    });
  });

  it('skips headings, rules and blank lines', () => {
    expect(isFactLine('## Learned')).toBe(false);
    expect(isFactLine('---')).toBe(false);
    expect(isFactLine('   ')).toBe(false);
    expect(isFactLine('- User lives in Berlin.')).toBe(true);
    expect(findConflicts(lines('USER.md', '## Learned\n## Learned\n- a b c'))).toEqual([]);
  });

  it('finds one attribute repeated on hundreds of lines, whose words are everywhere', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      fileName: 'USER.md',
      line: i + 1,
      text: `- User's phone for urgent issues is +1 415 555 0${100 + i}.`,
    }));
    const t0 = performance.now();
    const groups = findConflicts([...many, { fileName: 'USER.md', line: 301, text: many[5]!.text }]);
    expect(performance.now() - t0).toBeLessThan(5000);
    const phone = groups.filter((g) => g.attribute === 'phone');
    expect(phone).toHaveLength(1);
    expect(phone[0]!.lines).toHaveLength(301);
    expect(groups.filter((g) => g.kind === 'duplicate').map((g) => g.lines.map((l) => l.line))).toEqual([[6, 301]]);
  });
});
