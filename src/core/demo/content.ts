// What the demo workspace says: believable English and Chinese conversations, the memory_gate
// decision each turn deserves, and the starting content of the five memory files.
import type { GateDecision, MemoryFileName } from '../../shared/domain';
import type { Rng } from './random';

export type Lang = 'en' | 'zh';

export interface TurnScript {
  user: string;
  agent: string;
  decision: GateDecision;
  reason: string;
  fact?: string;
  /** The guardian must refuse this fact whatever the dice say (it carries a secret). */
  mustRefuse?: string;
  pii?: boolean;
}

const pools = {
  cityEn: ['Berlin', 'Lisbon', 'Toronto', 'Singapore', 'Austin', 'Melbourne', 'Osaka', 'Nairobi'],
  cityZh: ['杭州', '成都', '深圳', '上海', '北京', '西安', '厦门', '苏州'],
  tz: ['Europe/Berlin', 'Europe/Lisbon', 'America/Toronto', 'Asia/Singapore', 'America/Chicago', 'Australia/Melbourne', 'Asia/Tokyo'],
  drinkEn: ['green tea', 'oat flat white', 'sparkling water', 'black coffee', 'chai latte'],
  drinkZh: ['绿茶', '燕麦拿铁', '美式咖啡', '豆浆', '乌龙茶', '柠檬水'],
  projectEn: ['Atlas', 'Nightingale', 'Helios', 'Bluebird', 'Orchid', 'Quartz'],
  projectZh: ['星河', '青鸟', '白鹭', '天枢', '灯塔', '北斗'],
  personEn: ['Maria', 'Jonas', 'Priya', 'Tom', 'Aiko', 'Samuel', 'Leah'],
  personZh: ['王芳', '李雷', '张伟', '陈静', '刘洋', '赵敏', '周杰'],
  dayEn: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  dayZh: ['周一', '周二', '周三', '周四', '周五'],
  dateEn: ['March 14', 'April 2', 'April 18', 'May 6', 'May 21', 'June 10'],
  dateZh: ['3月14日', '4月2日', '4月18日', '5月6日', '5月21日', '6月10日'],
  tool: ['ripgrep', 'jq', 'pnpm', 'uv', 'lazygit', 'httpie', 'fd', 'duckdb'],
  agentName: ['Juniper', 'Pico', 'Atlas', '小溪', '阿福', 'Nova'],
  hobbyEn: ['bouldering', 'sourdough baking', 'trail running', 'chess', 'film photography'],
  hobbyZh: ['攀岩', '烘焙', '跑步', '下围棋', '胶片摄影', '书法'],
  topicEn: [
    'the weather tomorrow',
    'a quick summary of this thread',
    'a synonym for "robust"',
    'how long to boil an egg',
    'a joke about databases',
  ],
  topicZh: ['明天的天气', '这段讨论的总结', '一个好听的英文名', '煮鸡蛋要几分钟', '一个关于程序员的笑话'],
};

const fill = (rng: Rng) => ({
  city: (lang: Lang) => rng.pick(lang === 'en' ? pools.cityEn : pools.cityZh),
  tz: () => rng.pick(pools.tz),
  drink: (lang: Lang) => rng.pick(lang === 'en' ? pools.drinkEn : pools.drinkZh),
  project: (lang: Lang) => rng.pick(lang === 'en' ? pools.projectEn : pools.projectZh),
  person: (lang: Lang) => rng.pick(lang === 'en' ? pools.personEn : pools.personZh),
  day: (lang: Lang) => rng.pick(lang === 'en' ? pools.dayEn : pools.dayZh),
  date: (lang: Lang) => rng.pick(lang === 'en' ? pools.dateEn : pools.dateZh),
  tool: () => rng.pick(pools.tool),
  agentName: () => rng.pick(pools.agentName),
  hobby: (lang: Lang) => rng.pick(lang === 'en' ? pools.hobbyEn : pools.hobbyZh),
  topic: (lang: Lang) => rng.pick(lang === 'en' ? pools.topicEn : pools.topicZh),
  hour: () => rng.range(7, 10),
  n: (digits: number) => String(rng.int(10 ** digits)).padStart(digits, '0'),
});

type Maker = (rng: Rng) => TurnScript;

const en: Record<GateDecision, Maker[]> = {
  NO_WRITE: [
    (r) => {
      const t = fill(r).topic('en');
      return {
        user: `Quick one: can you give me ${t}?`,
        agent: `Sure, here is ${t}. Anything else?`,
        decision: 'NO_WRITE',
        reason: 'One-off request with no lasting fact about the user or the work.',
      };
    },
    () => ({
      user: 'Thanks, that was helpful!',
      agent: "You're welcome. Ping me whenever you need something.",
      decision: 'NO_WRITE',
      reason: 'Small talk; nothing worth remembering.',
    }),
    (r) => {
      const p = fill(r).project('en');
      return {
        user: `What did we say about ${p} yesterday? I forgot.`,
        agent: `Yesterday we agreed to keep the ${p} scope small and revisit it on Friday.`,
        decision: 'NO_WRITE',
        reason: 'The user asks to recall existing information; no new fact.',
      };
    },
    () => ({
      user: 'Can you rephrase my last message so it sounds less harsh?',
      agent: 'Here is a softer version: "Could we take another look at the timeline together?"',
      decision: 'NO_WRITE',
      reason: 'Editing help for a single message; transient.',
    }),
    (r) => {
      const c = fill(r).city('en');
      return {
        user: `I might visit ${c} at some point, not sure yet.`,
        agent: `Sounds fun. If it becomes a plan, tell me and I'll help with the trip.`,
        decision: 'NO_WRITE',
        reason: 'Speculative plan, not a stable fact.',
      };
    },
  ],
  UPDATE_USER: [
    (r) => {
      const f = fill(r);
      const c = f.city('en');
      const tz = f.tz();
      return {
        user: `By the way, I moved to ${c} last month, so please use ${tz} for my calendar from now on.`,
        agent: `Got it: I'll schedule everything in ${tz} from now on.`,
        decision: 'UPDATE_USER',
        reason: "Stable fact about the user's location and time zone that affects future scheduling.",
        fact: `User lives in ${c} and uses the ${tz} time zone.`,
      };
    },
    (r) => {
      const d = fill(r).drink('en');
      return {
        user: `I've stopped drinking coffee. When you order for me in the morning, get ${d} instead.`,
        agent: `Noted, ${d} it is for morning orders.`,
        decision: 'UPDATE_USER',
        reason: 'Lasting dietary preference stated explicitly by the user.',
        fact: `User no longer drinks coffee; prefers ${d} in the morning.`,
      };
    },
    (r) => {
      const f = fill(r);
      const h = f.hour();
      return {
        user: `Please never book meetings before ${h}:00, I do deep work in the mornings.`,
        agent: `Understood. I'll keep your calendar free before ${h}:00.`,
        decision: 'UPDATE_USER',
        reason: 'Standing scheduling preference of the user.',
        fact: `User does not take meetings before ${h}:00 (morning deep work).`,
      };
    },
    (r) => {
      const h = fill(r).hobby('en');
      return {
        user: `I've gotten really into ${h} lately, it's my weekend thing now.`,
        agent: `Nice! I'll keep that in mind when suggesting weekend plans.`,
        decision: 'UPDATE_USER',
        reason: 'New lasting hobby of the user.',
        fact: `User's weekend hobby is ${h}.`,
      };
    },
  ],
  UPDATE_MEMORY: [
    (r) => {
      const f = fill(r);
      const p = f.project('en');
      const d = f.date('en');
      const who = f.person('en');
      return {
        user: `Heads up: the ${p} launch moved to ${d}, and ${who} is running the demo.`,
        agent: `Thanks, I've noted the new ${p} launch date (${d}) and that ${who} runs the demo.`,
        decision: 'UPDATE_MEMORY',
        reason: 'Project milestone and owner that later conversations depend on.',
        fact: `${p} launch is scheduled for ${d}; ${who} runs the demo.`,
      };
    },
    (r) => {
      const f = fill(r);
      const p = f.project('en');
      const day = f.day('en');
      return {
        user: `From now on the ${p} standup is on ${day}s at 9:30.`,
        agent: `Okay, ${p} standup on ${day}s at 9:30.`,
        decision: 'UPDATE_MEMORY',
        reason: 'Recurring team commitment.',
        fact: `${p} standup happens every ${day} at 9:30.`,
      };
    },
    (r) => {
      const f = fill(r);
      const who = f.person('en');
      const p = f.project('en');
      return {
        user: `${who} is taking over ${p} while I'm on leave.`,
        agent: `Got it. I'll route ${p} questions to ${who} during your leave.`,
        decision: 'UPDATE_MEMORY',
        reason: 'Ownership change with future consequences.',
        fact: `${who} owns ${p} while the user is on leave.`,
      };
    },
  ],
  UPDATE_SOUL: [
    () => ({
      user: 'Please be more direct with me. Skip the pleasantries and get to the point.',
      agent: 'Will do. Short and direct from here on.',
      decision: 'UPDATE_SOUL',
      reason: "The user asks for a lasting change in the agent's tone.",
      fact: 'Be direct and concise; skip pleasantries.',
    }),
    () => ({
      user: "When you're not sure about something, say so instead of guessing.",
      agent: "Agreed. I'll flag uncertainty rather than guess.",
      decision: 'UPDATE_SOUL',
      reason: 'A principle for how the agent should behave.',
      fact: 'State uncertainty explicitly instead of guessing.',
    }),
    () => ({
      user: 'Push back if you think I am wrong, I prefer honest disagreement.',
      agent: "Understood. I'll tell you when I disagree and why.",
      decision: 'UPDATE_SOUL',
      reason: 'Lasting behavioural instruction.',
      fact: 'Disagree openly and explain why when the user seems wrong.',
    }),
  ],
  UPDATE_IDENTITY: [
    (r) => {
      const n = fill(r).agentName();
      return {
        user: `I'd like to call you ${n} from now on.`,
        agent: `${n} it is. Nice to meet you again!`,
        decision: 'UPDATE_IDENTITY',
        reason: "The user renames the agent; this is part of the agent's identity.",
        fact: `The agent's name is ${n}.`,
      };
    },
    () => ({
      user: 'Your role in this team is release manager, not just an assistant.',
      agent: "Understood. I'll act as the team's release manager.",
      decision: 'UPDATE_IDENTITY',
      reason: "Defines the agent's role.",
      fact: "The agent acts as the team's release manager.",
    }),
  ],
  UPDATE_TOOLS: [
    (r) => {
      const t = fill(r).tool();
      return {
        user: `Use ${t} for this kind of task from now on, it's installed on the build box.`,
        agent: `Okay, I'll use ${t} for that going forward.`,
        decision: 'UPDATE_TOOLS',
        reason: 'Tooling convention that future tasks should follow.',
        fact: `Use ${t}; it is installed on the build box.`,
      };
    },
    () => ({
      user: 'Deployments go through scripts/deploy.sh with --dry-run first, always.',
      agent: 'Got it: dry run first, then the real deploy.',
      decision: 'UPDATE_TOOLS',
      reason: 'A standing procedure for a tool.',
      fact: 'Deploy with scripts/deploy.sh, always with --dry-run first.',
    }),
  ],
};

const zh: Record<GateDecision, Maker[]> = {
  NO_WRITE: [
    (r) => {
      const t = fill(r).topic('zh');
      return {
        user: `帮我查一下${t}。`,
        agent: `好的，这是${t}的信息。还有别的需要吗？`,
        decision: 'NO_WRITE',
        reason: '一次性请求，没有需要长期记住的事实。',
      };
    },
    () => ({ user: '谢谢，辛苦了！', agent: '不客气，有事随时找我。', decision: 'NO_WRITE', reason: '寒暄，没有可记忆的信息。' }),
    (r) => {
      const p = fill(r).project('zh');
      return {
        user: `昨天我们关于${p}项目说了什么来着？`,
        agent: `昨天我们决定先缩小${p}的范围，周五再讨论。`,
        decision: 'NO_WRITE',
        reason: '用户在回忆已有信息，没有新事实。',
      };
    },
    () => ({
      user: '把我刚才那句话改得委婉一点。',
      agent: '可以这样说：“我们能不能一起再看看时间安排？”',
      decision: 'NO_WRITE',
      reason: '单条消息的润色，属于临时请求。',
    }),
    (r) => {
      const c = fill(r).city('zh');
      return {
        user: `说不定哪天我会去${c}玩，还没定。`,
        agent: `听起来不错，定下来告诉我，我帮你安排行程。`,
        decision: 'NO_WRITE',
        reason: '计划尚未确定，不是稳定事实。',
      };
    },
  ],
  UPDATE_USER: [
    (r) => {
      const d = fill(r).drink('zh');
      return {
        user: `我不喝咖啡了，以后早上帮我订${d}吧。`,
        agent: `好的，以后早上给你订${d}。`,
        decision: 'UPDATE_USER',
        reason: '用户明确表达了长期的饮食偏好。',
        fact: `用户不再喝咖啡，早上偏好${d}。`,
      };
    },
    (r) => {
      const c = fill(r).city('zh');
      return {
        user: `我上个月搬到${c}了，以后按${c}的时间安排日程。`,
        agent: `明白，以后按${c}本地时间安排。`,
        decision: 'UPDATE_USER',
        reason: '用户的居住地发生变化，影响之后的日程安排。',
        fact: `用户现居${c}。`,
      };
    },
    (r) => {
      const h = fill(r).hobby('zh');
      return {
        user: `最近迷上了${h}，周末基本都在练。`,
        agent: `太好了，推荐周末活动时我会考虑这一点。`,
        decision: 'UPDATE_USER',
        reason: '用户新的长期爱好。',
        fact: `用户周末的爱好是${h}。`,
      };
    },
    (r) => {
      const h = fill(r).hour();
      return {
        user: `上午${h}点之前不要给我约会议，我要专心写代码。`,
        agent: `好的，${h}点前的时间我都帮你空出来。`,
        decision: 'UPDATE_USER',
        reason: '用户长期的日程偏好。',
        fact: `用户上午${h}点前不开会。`,
      };
    },
  ],
  UPDATE_MEMORY: [
    (r) => {
      const f = fill(r);
      const p = f.project('zh');
      const d = f.date('zh');
      const who = f.person('zh');
      return {
        user: `${p}项目的上线时间改到${d}了，负责人是${who}。`,
        agent: `收到，${p}改为${d}上线，由${who}负责。`,
        decision: 'UPDATE_MEMORY',
        reason: '项目里程碑和负责人，后续对话会用到。',
        fact: `${p}项目${d}上线，负责人${who}。`,
      };
    },
    (r) => {
      const f = fill(r);
      const p = f.project('zh');
      const day = f.day('zh');
      return {
        user: `以后${p}的周会固定在${day}上午十点。`,
        agent: `好的，${p}周会：${day}上午十点。`,
        decision: 'UPDATE_MEMORY',
        reason: '团队的固定安排。',
        fact: `${p}周会每${day}上午十点。`,
      };
    },
  ],
  UPDATE_SOUL: [
    () => ({
      user: '以后回答简洁一点，不用太客气。',
      agent: '好的，以后直接说重点。',
      decision: 'UPDATE_SOUL',
      reason: '用户要求长期调整回答风格。',
      fact: '回答简洁直接，少客套。',
    }),
    () => ({
      user: '不确定的时候直接说不确定，别瞎猜。',
      agent: '明白，不确定时我会明确说明。',
      decision: 'UPDATE_SOUL',
      reason: '关于行为方式的长期原则。',
      fact: '不确定时明确说明，不要猜测。',
    }),
  ],
  UPDATE_IDENTITY: [
    (r) => {
      const n = fill(r).agentName();
      return {
        user: `以后你就叫${n}吧。`,
        agent: `好的，我是${n}，很高兴继续为你服务！`,
        decision: 'UPDATE_IDENTITY',
        reason: '用户给助手起了新名字，属于身份信息。',
        fact: `助手的名字是${n}。`,
      };
    },
    () => ({
      user: '你在我们组的角色是发布负责人。',
      agent: '明白，我会以发布负责人的身份协助大家。',
      decision: 'UPDATE_IDENTITY',
      reason: '定义了助手的角色。',
      fact: '助手是团队的发布负责人。',
    }),
  ],
  UPDATE_TOOLS: [
    (r) => {
      const t = fill(r).tool();
      return {
        user: `以后查日志用 ${t}，别用 grep 了。`,
        agent: `好的，以后用 ${t} 查日志。`,
        decision: 'UPDATE_TOOLS',
        reason: '工具使用约定，之后的任务都要遵守。',
        fact: `查日志使用 ${t}，不要用 grep。`,
      };
    },
    () => ({
      user: '部署一律先跑 scripts/deploy.sh --dry-run。',
      agent: '收到，先演练再正式部署。',
      decision: 'UPDATE_TOOLS',
      reason: '工具的固定流程。',
      fact: '部署前先运行 scripts/deploy.sh --dry-run。',
    }),
  ],
};

/** Turns whose text carries personal data or a secret, for the PII detector and the guardian's refusals. */
const piiMakers: Record<Lang, Maker[]> = {
  en: [
    (r) => {
      const f = fill(r);
      const email = `${f.person('en').toLowerCase()}.${f.n(3)}@example.com`;
      return {
        user: `My work email changed, it's ${email} now.`,
        agent: 'Thanks, I will use the new address for work mail.',
        decision: 'UPDATE_USER',
        reason: 'New contact detail for the user.',
        fact: `User's work email is ${email}.`,
        pii: true,
      };
    },
    (r) => {
      const f = fill(r);
      const phone = `+1 415 555 0${f.n(3)}`;
      return {
        user: `If anything breaks, call me at ${phone}.`,
        agent: 'Noted. I will call that number for urgent issues.',
        decision: 'UPDATE_USER',
        reason: 'Emergency contact number.',
        fact: `User's phone for urgent issues is ${phone}.`,
        pii: true,
      };
    },
    (r) => {
      const f = fill(r);
      const key = `sk-proj-${f.n(6)}Ab9xQ${f.n(8)}Zt7LmN${f.n(6)}`;
      return {
        user: `Here is the OpenAI key for the build box: ${key}`,
        agent: 'I received it. I will not store secrets in memory files.',
        decision: 'UPDATE_TOOLS',
        reason: 'The user shares a credential for a tool.',
        fact: `OpenAI API key for the build box: ${key}`,
        mustRefuse: 'Refused: the fact contains an API key; secrets never go into TOOLS.md.',
        pii: true,
      };
    },
  ],
  zh: [
    (r) => {
      const f = fill(r);
      const mobile = `13${r.range(0, 9)}${f.n(4)}${f.n(4)}`;
      return {
        user: `我换手机号了，新号码是 ${mobile}，有急事打这个。`,
        agent: '好的，紧急情况我会打新号码。',
        decision: 'UPDATE_USER',
        reason: '用户的联系方式变更。',
        fact: `用户手机号：${mobile}`,
        pii: true,
      };
    },
    (r) => {
      const f = fill(r);
      const email = `zhang.wei${f.n(2)}@example.cn`;
      return {
        user: `发票请寄到 ${email}，谢谢。`,
        agent: '收到，发票会发到这个邮箱。',
        decision: 'UPDATE_USER',
        reason: '用户提供了接收发票的邮箱。',
        fact: `用户收发票的邮箱是 ${email}。`,
        pii: true,
      };
    },
    (r) => {
      const f = fill(r);
      const key = `AKIA${f.n(8)}QZXW${f.n(4)}`;
      return {
        user: `服务器的 AWS 密钥是 ${key}，你记一下。`,
        agent: '我收到了，但密钥不会写进记忆文件。',
        decision: 'UPDATE_TOOLS',
        reason: '用户分享了工具的凭据。',
        fact: `AWS 密钥：${key}`,
        mustRefuse: '拒绝写入：内容包含 API 密钥，凭据不能写入 TOOLS.md。',
        pii: true,
      };
    },
  ],
};

const DECISION_WEIGHTS: Array<[GateDecision, number]> = [
  ['NO_WRITE', 0.55],
  ['UPDATE_USER', 0.16],
  ['UPDATE_MEMORY', 0.13],
  ['UPDATE_TOOLS', 0.06],
  ['UPDATE_SOUL', 0.05],
  ['UPDATE_IDENTITY', 0.05],
];

export function randomTurn(rng: Rng, lang: Lang): TurnScript {
  if (rng.chance(0.04)) return rng.pick(piiMakers[lang])(rng);
  let x = rng.next();
  let decision: GateDecision = 'NO_WRITE';
  for (const [d, w] of DECISION_WEIGHTS) {
    if (x < w) {
      decision = d;
      break;
    }
    x -= w;
  }
  return rng.pick((lang === 'en' ? en : zh)[decision])(rng);
}

/** A scripted session that shows every decision kind in both languages, so even a tiny demo covers them all. */
export function tourTurns(rng: Rng): TurnScript[] {
  const out: TurnScript[] = [];
  for (const lang of ['en', 'zh'] as const) {
    const table = lang === 'en' ? en : zh;
    for (const d of ['UPDATE_USER', 'NO_WRITE', 'UPDATE_MEMORY', 'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS'] as const) {
      out.push(table[d][0]!(rng)); // every decision has phrasings in both languages
    }
    for (const m of piiMakers[lang]) out.push(m(rng));
  }
  return out;
}

/** Hostile text for the UI security test: it must show as text, never run. */
export function hostileTurns(): TurnScript[] {
  return [
    {
      user: '<img src=x onerror=alert(1)>',
      agent: 'That looks like HTML. Here is the link you asked for: [click me](javascript:alert(1))',
      decision: 'NO_WRITE',
      reason: 'The message is markup, not a fact about the user.',
    },
    {
      user: 'Remember my name: Robert"); DROP TABLE sessions;-- <script>alert("xss")</script>',
      agent: 'I will not run code, but I noted a name. \u001b[31mThis line tried to colour your terminal.\u001b[0m',
      decision: 'UPDATE_USER',
      reason: 'Claims a name, wrapped in injection attempts.',
      fact: 'User\'s name is Robert"); DROP TABLE sessions;-- <script>alert("xss")</script>',
      mustRefuse: 'Refused: the fact contains markup and SQL that look like an injection attempt.',
    },
    {
      user: 'What does <b>bold</b> & "quotes" look like in your UI?',
      agent: 'It should look exactly like this: <b>bold</b> & "quotes", shown as text.',
      decision: 'NO_WRITE',
      reason: 'A question about rendering; nothing to remember.',
    },
  ];
}

export const LLM_MODELS = ['x-ai/grok-4.1-fast', 'x-ai/grok-4.1-fast', 'openai/gpt-4.1-mini', 'anthropic/claude-haiku-4.5'] as const;

export const CHANNELS = [
  { channel: 'discord', targets: ['general', 'team-atlas', 'dm-alex', 'release-room'] },
  { channel: 'telegram', targets: ['7192195698', '5540012345', 'family-group'] },
  { channel: 'slack', targets: ['C04PLATFORM', 'D02ALEX', 'C07RELEASES'] },
  { channel: 'feishu', targets: ['oc_team_xinghe', 'ou_chenjing', 'oc_beidou'] },
  { channel: 'webchat', targets: ['browser', 'mobile'] },
] as const;

/** Each file: a fixed, real preamble, then a "learned" section whose bullets the demo's writes change. */
export const FILE_PREAMBLES: Record<MemoryFileName, string> = {
  'MEMORY.md':
    '# MEMORY\n\nLong-term facts about ongoing work, projects and commitments.\n\n## Standing facts\n- The team ships the mobile app every second Thursday.\n- Quarterly planning happens in the first week of each quarter.\n- 季度复盘在每季度最后一周进行。\n\n## Learned\n',
  'USER.md':
    '# USER\n\nWho the user is and how they like to work.\n\n## Profile\n- Name: Alex Chen (陈亚历)\n- Works as a staff engineer on the platform team.\n- Writes English at work and Chinese with family.\n\n## Learned\n',
  'SOUL.md':
    "# SOUL\n\nHow the agent thinks and speaks.\n\n## Principles\n- Be helpful first, clever second.\n- Protect the user's time and privacy.\n- 尊重用户的决定，同时坦诚给出建议。\n\n## Learned\n",
  'IDENTITY.md':
    '# IDENTITY\n\nWho the agent is.\n\n## Basics\n- Name: Juniper\n- Role: personal assistant for Alex and the platform team.\n- Languages: English, 中文.\n\n## Learned\n',
  'TOOLS.md':
    '# TOOLS\n\nTools, environments and procedures the agent may use.\n\n## Environment\n- Build box: Debian 12, Node 20, Python 3.11.\n- Calendar: shared team calendar, read/write.\n\n## Learned\n',
};
