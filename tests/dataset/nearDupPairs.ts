// Near-duplicate pairs with known answers (issue 12, item 4), for the dedupe test and the bench.
// distinct: two consecutive turns of one session that share their context window but teach different
// facts (the hard case: same structure, other entity or value). same: one lesson twice, in other
// words, casing, punctuation, full-width forms, a typo, or a different secret that redaction hides.
import type { GateDecision } from '../../src/shared/domain';
import { collectSamples } from '../../src/core/dataset';
import { miniWorkspaceAt } from './mini';

export interface PairTurn {
  user: string;
  agent: string;
  decision: GateDecision;
  fact: string;
}

export interface NearDupPair {
  a: PairTurn;
  b: PairTurn;
  same: boolean;
}

const U = (user: string, agent: string, fact: string, decision: GateDecision = 'UPDATE_USER'): PairTurn => ({
  user,
  agent,
  decision,
  fact,
});
const M = (user: string, agent: string, fact: string): PairTurn => U(user, agent, fact, 'UPDATE_MEMORY');

const DISTINCT: [PairTurn, PairTurn][] = [
  [
    U('My sister Lily lives in Hangzhou.', 'Noted, Lily is in Hangzhou.', 'Sister Lily lives in Hangzhou'),
    U('My brother Tom lives in Shanghai.', 'Noted, Tom is in Shanghai.', 'Brother Tom lives in Shanghai'),
  ],
  [
    U('I prefer dark mode in my editor.', 'Dark mode in the editor, noted.', 'prefers dark mode in the editor'),
    U('I prefer light mode in my terminal.', 'Light mode in the terminal, noted.', 'prefers light mode in the terminal'),
  ],
  [U('我喜欢喝绿茶。', '好的，记住了。', '喜欢喝绿茶'), U('我不喜欢喝咖啡。', '好的，记住了。', '不喜欢喝咖啡')],
  [
    M('The staging server is called atlas-stg.', 'Got it.', 'staging server is atlas-stg'),
    M('The production server is called atlas-prd.', 'Got it.', 'production server is atlas-prd'),
  ],
  [
    U("My daughter's birthday is March 3.", 'I will remember it.', "daughter's birthday is March 3"),
    U("My son's birthday is June 12.", 'I will remember it.', "son's birthday is June 12"),
  ],
  [
    M('We deploy with pnpm in this repo.', 'Understood.', 'the repo deploys with pnpm'),
    M('We test with vitest in this repo.', 'Understood.', 'the repo tests with vitest'),
  ],
  [U('Please call me Alex.', 'Sure, Alex.', 'wants to be called Alex'), U('My manager is called Sam.', 'Okay.', 'manager is called Sam')],
  [
    U('I work from Berlin on Mondays.', 'Berlin on Mondays, got it.', 'works from Berlin on Mondays'),
    U('I work from Paris on Fridays.', 'Paris on Fridays, got it.', 'works from Paris on Fridays'),
  ],
  [U('我每天早上七点跑步。', '好的。', '每天早上七点跑步'), U('我每周六下午游泳。', '好的。', '每周六下午游泳')],
  [
    M('Project Falcon ships on April 1.', 'Noted.', 'Project Falcon ships on April 1'),
    M('Project Eagle ships on May 15.', 'Noted.', 'Project Eagle ships on May 15'),
  ],
  [
    M('Use tabs in Go code.', 'Tabs for Go.', 'Go code uses tabs'),
    M('Use two spaces in YAML files.', 'Two spaces for YAML.', 'YAML files use two spaces'),
  ],
  [
    U('My favourite colour is blue.', 'Blue, nice.', 'favourite colour is blue'),
    U('My favourite food is ramen.', 'Ramen, nice.', 'favourite food is ramen'),
  ],
  [U('我对花生过敏。', '记下了。', '对花生过敏'), U('我女儿对牛奶过敏。', '记下了。', '女儿对牛奶过敏')],
  [
    M('The on-call rota changes every Monday.', 'Okay.', 'on-call rota changes every Monday'),
    M('The release freeze starts every Friday.', 'Okay.', 'release freeze starts every Friday'),
  ],
  [U("I'm vegetarian.", 'Good to know.', 'is vegetarian'), U("I'm allergic to shellfish.", 'Good to know.', 'is allergic to shellfish')],
  [
    M('Remember that the gym closes at 9pm.', 'Will do.', 'the gym closes at 9pm'),
    M('Remember that the library opens at 8am.', 'Will do.', 'the library opens at 8am'),
  ],
  [U('我住在杭州西湖区。', '好的。', '住在杭州西湖区'), U('我在上海浦东上班。', '好的。', '在上海浦东上班')],
  [
    M('Our API uses REST with JSON.', 'Noted.', 'the API uses REST with JSON'),
    M('Our CLI uses commander for parsing.', 'Noted.', 'the CLI uses commander'),
  ],
  [U('My cat is named Miso.', 'Cute!', 'cat is named Miso'), U('My dog is named Pepper.', 'Cute!', 'dog is named Pepper')],
  [
    M('The weekly report is due on Thursday.', 'Okay.', 'weekly report is due Thursday'),
    M('The monthly review is due on the 28th.', 'Okay.', 'monthly review is due on the 28th'),
  ],
  [
    U('I prefer meetings after 10am.', 'After 10am, noted.', 'prefers meetings after 10am'),
    U('I prefer calls before 5pm.', 'Before 5pm, noted.', 'prefers calls before 5pm'),
  ],
  [U('每周五下午不要给我安排会议。', '明白。', '周五下午不安排会议'), U('每周一上午给我安排例会。', '明白。', '周一上午安排例会')],
  [
    U('I speak German and English.', 'Great.', 'speaks German and English'),
    U('My partner speaks French.', 'Great.', 'partner speaks French'),
  ],
  [M('The Q3 budget is 50k.', 'Noted.', 'Q3 budget is 50k'), M('The Q3 headcount is 4.', 'Noted.', 'Q3 headcount is 4')],
  [M('The repo lives on GitLab.', 'Okay.', 'the repo is on GitLab'), M('The wiki lives on Notion.', 'Okay.', 'the wiki is on Notion')],
  [U('我习惯用 Vim 写代码。', '好的。', '习惯用 Vim 写代码'), U('我习惯用 VS Code 写前端。', '好的。', '习惯用 VS Code 写前端')],
  [
    U('My timezone is UTC+8.', 'UTC+8, noted.', 'timezone is UTC+8'),
    U("My manager's timezone is UTC-5.", 'UTC-5, noted.', "manager's timezone is UTC-5"),
  ],
  [
    U('I take the 8:15 train every morning.', 'Noted.', 'takes the 8:15 train'),
    U('I leave the office at 18:30 every day.', 'Noted.', 'leaves the office at 18:30'),
  ],
  [
    M('Use Postgres for the analytics service.', 'Postgres it is.', 'analytics service uses Postgres'),
    M('Use Redis for the session cache.', 'Redis it is.', 'session cache uses Redis'),
  ],
  [U('我儿子在读三年级。', '好的。', '儿子在读三年级'), U('我女儿在读初二。', '好的。', '女儿在读初二')],
  // the same sentence with another number: a different fact
  [M('The Q3 budget is 50k.', 'Noted.', 'Q3 budget is 50k'), M('The Q3 budget is 60k.', 'Noted.', 'Q3 budget is 60k')],
  [
    U('My standup is at 9:30 every day.', 'Noted.', 'standup is at 9:30'),
    U('My standup is at 10:30 every day.', 'Noted.', 'standup is at 10:30'),
  ],
  [U('我每天跑步5公里。', '好的。', '每天跑步5公里'), U('我每天跑步8公里。', '好的。', '每天跑步8公里')],
];

const SAME: [PairTurn, PairTurn][] = [
  [
    U('I prefer dark mode in my editor.', 'Dark mode, noted.', 'prefers dark mode in the editor'),
    U('I prefer dark mode in my editor!', 'Dark mode, noted.', 'prefers dark mode in the editor'),
  ],
  [
    U('I prefer morning check-ins.', 'Morning check-ins, noted.', 'prefers morning check-ins'),
    U('i prefer morning check-ins', 'Morning check-ins, noted.', 'prefers morning check-ins'),
  ],
  [U('我喜欢喝绿茶。', '好的，记住了。', '喜欢喝绿茶'), U('我喜欢喝绿茶！', '好的，记住了！', '喜欢喝绿茶')],
  [U('我喜欢喝绿茶', '好的，记住了。', '喜欢喝绿茶'), U('我喜欢喝绿茶。', '好的, 记住了.', '喜欢喝绿茶')],
  [
    M(
      'Use this API key for deploys: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
      'Got it.',
      'deploy key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
    ),
    M(
      'Use this API key for deploys: sk-proj-Zz9yXx8wVv7uTt6sRr5qQp4oOn3mMl2k',
      'Got it.',
      'deploy key is sk-proj-Zz9yXx8wVv7uTt6sRr5qQp4oOn3mMl2k',
    ),
  ],
  [
    U('Send the reports to carol.wang@example.com please.', 'Will do.', 'reports go to carol.wang@example.com'),
    U('Send the reports to dan.li@example.org please.', 'Will do.', 'reports go to dan.li@example.org'),
  ],
  [
    U('I prefer mornign check-ins with the team.', 'Noted.', 'prefers morning check-ins with the team'),
    U('I prefer morning check-ins with the team.', 'Noted.', 'prefers morning check-ins with the team'),
  ],
  [
    U('My  sister Lily lives in Hangzhou.', 'Noted, Lily is in Hangzhou.', 'Sister Lily lives in Hangzhou'),
    U('My sister Lily lives in Hangzhou.', 'Noted, Lily is in Hangzhou.', 'Sister Lily lives in Hangzhou'),
  ],
  [
    M('Project Falcon ships on April 1.', 'Noted.', 'Project Falcon ships on April 1'),
    M('Project Falcon ships on April 1.', 'Noted!', 'Project Falcon ships on April 1'),
  ],
  [
    U('我的手机号是 13812345678，有事打给我。', '好的。', '手机号是 13812345678'),
    U('我的手机号是 13987654321，有事打给我。', '好的。', '手机号是 13987654321'),
  ],
  [
    U('I like green tea with my breakfast every day.', 'Green tea with breakfast, got it.', 'likes green tea with breakfast'),
    U('I like green tea with my breakfast, every day.', 'Green tea with breakfast, got it.', 'likes green tea with breakfast'),
  ],
  [
    U('Please always answer me in Chinese from now on.', 'Sure, Chinese from now on.', 'prefers answers in Chinese'),
    U('Please always answer me in Chinese from now on!!', 'Sure, Chinese from now on.', 'prefers answers in Chinese'),
  ],
  [
    M('The staging server is called atlas-stg.', 'Got it.', 'staging server is atlas-stg'),
    M('The staging server is called ATLAS-STG.', 'Got it.', 'staging server is atlas-stg'),
  ],
  [U('以后默认用中文回复我。', '好的，默认中文。', '默认使用中文'), U('以后默认用中文回复我', '好的,默认中文.', '默认使用中文')],
  [
    U('I work from Berlin on Mondays.', 'Berlin on Mondays, got it.', 'works from Berlin on Mondays'),
    U('I work from Berlin on Mondays', 'Berlin on Mondays, got it.', 'works from Berlin on Mondays'),
  ],
  [U('My cat is named Miso.', 'Cute!', 'cat is named Miso'), U('My cat is named Miso!', 'Cute!!', 'cat is named Miso')],
  [
    M('The weekly report is due on Thursday.', 'Okay.', 'weekly report is due Thursday'),
    M('the weekly report is due on thursday.', 'Okay.', 'weekly report is due Thursday'),
  ],
  [U('我对花生过敏，千万记住。', '记下了。', '对花生过敏'), U('我对花生过敏，千万要记住。', '记下了。', '对花生过敏')],
  [U('ＩＤ number for the gym is 4471.', 'Okay.', 'gym id is 4471'), U('ID number for the gym is 4471.', 'Okay.', 'gym id is 4471')],
  [
    M('Use Postgres for the analytics service.', 'Postgres it is.', 'analytics service uses Postgres'),
    M('Use Postgres for the analytics service, please.', 'Postgres it is.', 'analytics service uses Postgres'),
  ],
  [U('My timezone is UTC+8.', 'UTC+8, noted.', 'timezone is UTC+8'), U('My time zone is UTC+8.', 'UTC+8, noted.', 'timezone is UTC+8')],
  [
    U('I take the 8:15 train every morning.', 'Noted.', 'takes the 8:15 train'),
    U('I take the 8:15 train every morning!', 'Noted.', 'takes the 8:15 train'),
  ],
  [U('每周五下午不要给我安排会议。', '明白。', '周五下午不安排会议'), U('每周五下午不要给我安排会议！', '明白！', '周五下午不安排会议')],
  [
    M('Our API uses REST with JSON.', 'Noted.', 'the API uses REST with JSON'),
    M('Our API uses REST with JSON bodies.', 'Noted.', 'the API uses REST with JSON'),
  ],
  [
    U('Call me on +1 415 555 0134 if the build breaks.', 'Will do.', 'call +1 415 555 0134 when the build breaks'),
    U('Call me on +1 415 555 0199 if the build breaks.', 'Will do.', 'call +1 415 555 0199 when the build breaks'),
  ],
  // reworded: the same lesson in another word order (the gate extracted the same fact)
  [
    U('I prefer check-ins in the morning.', 'Noted.', 'prefers morning check-ins'),
    U('I prefer morning check-ins.', 'Noted.', 'prefers morning check-ins'),
  ],
  [
    U('Answer me in Chinese by default.', 'Okay.', 'prefers Chinese by default'),
    U('By default, answer me in Chinese.', 'Okay.', 'prefers Chinese by default'),
  ],
  [U('默认用中文回复我。', '好的。', '默认使用中文'), U('回复我默认用中文。', '好的。', '默认使用中文')],
  [
    U('My sister Lily lives in Hangzhou.', 'Noted.', 'Sister Lily lives in Hangzhou'),
    U('Lily, my sister, lives in Hangzhou.', 'Noted.', 'Sister Lily lives in Hangzhou'),
  ],
  [M('Our deploys use pnpm.', 'Understood.', 'deploys use pnpm'), M('We use pnpm for our deploys.', 'Understood.', 'deploys use pnpm')],
];

/** 63 pairs: 33 distinct facts from consecutive turns (3 differ only in a number), 25 copies of one lesson, 5 rewordings. */
export const NEAR_DUP_PAIRS: NearDupPair[] = [
  ...DISTINCT.map(([a, b]) => ({ a, b, same: false })),
  ...SAME.map(([a, b]) => ({ a, b, same: true })),
];

const SHARED_CONTEXT = [
  { role: 'user' as const, message: 'Let me tell you a few things about me and our project so you can keep them in mind.' },
  { role: 'agent' as const, message: 'Sure, go ahead, I am listening and will keep the important parts.' },
  { role: 'user' as const, message: 'We have been working on the reflection plugin for two months now, mostly in the evenings.' },
  { role: 'agent' as const, message: 'Understood, the reflection plugin, evenings.' },
];

export interface PairOutcome {
  pair: NearDupPair;
  merged: boolean;
}

/**
 * Records each pair through the recorder, collects, and reports whether the two gate samples share a
 * cluster. Distinct pairs are consecutive turns of one session with the same context window before
 * them; same pairs are the lesson in two sessions.
 */
export async function runNearDupPairs(dir: string, pairs = NEAR_DUP_PAIRS): Promise<PairOutcome[]> {
  const m = miniWorkspaceAt(dir);
  const ids: [string, string][] = [];
  pairs.forEach((p, i) => {
    const write = (t: PairTurn) => ({
      status: 'written' as const,
      file: t.decision === 'UPDATE_USER' ? ('USER.md' as const) : ('MEMORY.md' as const),
    });
    const sa = `pair:${i}:a`;
    const sb = p.same ? `pair:${i}:b` : sa;
    const a = m.turn(sa, p.a.user, p.a.agent, {
      decision: p.a.decision,
      fact: p.a.fact,
      reason: 'A lasting fact.',
      write: write(p.a),
      context: SHARED_CONTEXT,
    });
    const ctxB = p.same
      ? SHARED_CONTEXT
      : [...SHARED_CONTEXT.slice(2), { role: 'user' as const, message: p.a.user }, { role: 'agent' as const, message: p.a.agent }];
    const b = m.turn(sb, p.b.user, p.b.agent, {
      decision: p.b.decision,
      fact: p.b.fact,
      reason: 'A lasting fact.',
      write: write(p.b),
      context: ctxB,
    });
    ids.push([a.decisionId, b.decisionId]);
  });
  await collectSamples(m.ctx, {});
  const clusterOf = m.db.prepare('SELECT cluster_id FROM dataset_samples WHERE source_key = ?').pluck();
  const outcomes = pairs.map((pair, i) => ({ pair, merged: clusterOf.get(`pos:${ids[i]![0]}`) === clusterOf.get(`pos:${ids[i]![1]}`) })); // ids has one entry per pair
  m.db.close();
  return outcomes;
}

export function pairScores(outcomes: PairOutcome[]): { precision: number; recall: number; tp: number; fp: number; fn: number; tn: number } {
  const tp = outcomes.filter((o) => o.merged && o.pair.same).length;
  const fp = outcomes.filter((o) => o.merged && !o.pair.same).length;
  const fn = outcomes.filter((o) => !o.merged && o.pair.same).length;
  const tn = outcomes.length - tp - fp - fn;
  return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, tp, fp, fn, tn };
}
