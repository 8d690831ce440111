// Bilingual (Chinese / English / mixed) memory cards and queries for the load benchmark.
// Deterministic for a given seed, so two runs search the same corpus with the same questions.

export type Lang = "en" | "zh" | "mixed";

/** A small, fast, seedable PRNG (mulberry32). */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof rng>;

type Pair = { en: string; zh: string; key: string };
const pair = (key: string, en: string, zh: string): Pair => ({ key, en, zh });

export const FOODS: readonly Pair[] = [
  pair("peanuts", "peanuts", "花生"),
  pair("cilantro", "cilantro", "香菜"),
  pair("shrimp", "shrimp", "虾"),
  pair("milk", "milk", "牛奶"),
  pair("gluten", "gluten", "麸质"),
  pair("chili", "chili peppers", "辣椒"),
  pair("mushrooms", "mushrooms", "蘑菇"),
  pair("eggs", "eggs", "鸡蛋"),
  pair("pork", "pork", "猪肉"),
  pair("garlic", "garlic", "大蒜"),
  pair("sesame", "sesame", "芝麻"),
  pair("beef", "beef", "牛肉"),
  pair("celery", "celery", "芹菜"),
  pair("durian", "durian", "榴莲"),
];
export const CITIES: readonly Pair[] = [
  pair("hangzhou", "Hangzhou", "杭州"),
  pair("shanghai", "Shanghai", "上海"),
  pair("beijing", "Beijing", "北京"),
  pair("shenzhen", "Shenzhen", "深圳"),
  pair("chengdu", "Chengdu", "成都"),
  pair("lisbon", "Lisbon", "里斯本"),
  pair("berlin", "Berlin", "柏林"),
  pair("tokyo", "Tokyo", "东京"),
  pair("singapore", "Singapore", "新加坡"),
  pair("london", "London", "伦敦"),
  pair("nanjing", "Nanjing", "南京"),
  pair("wuhan", "Wuhan", "武汉"),
  pair("xian", "Xi'an", "西安"),
  pair("guangzhou", "Guangzhou", "广州"),
  pair("paris", "Paris", "巴黎"),
  pair("madrid", "Madrid", "马德里"),
  pair("seoul", "Seoul", "首尔"),
  pair("sydney", "Sydney", "悉尼"),
  pair("toronto", "Toronto", "多伦多"),
  pair("nairobi", "Nairobi", "内罗毕"),
];
const PROJECT_NAMES: readonly [string, string][] = [
  ["Hermes", "赫尔墨斯"],
  ["Atlas", "阿特拉斯"],
  ["Polaris", "北极星"],
  ["Bluebird", "青鸟"],
  ["Orion", "猎户座"],
  ["Nightjar", "夜鹰"],
  ["Great Wall", "长城"],
  ["Lotus", "莲花"],
  ["Kestrel", "红隼"],
  ["Magpie", "喜鹊"],
  ["Comet", "彗星"],
  ["Aurora", "极光"],
  ["Bamboo", "竹林"],
  ["Cedar", "雪松"],
  ["Dolphin", "海豚"],
  ["Ember", "余烬"],
  ["Falcon", "猎鹰"],
  ["Glacier", "冰川"],
  ["Harbor", "港湾"],
  ["Iris", "鸢尾"],
  ["Jade", "翡翠"],
  ["Koi", "锦鲤"],
  ["Lantern", "灯笼"],
  ["Maple", "枫叶"],
  ["Nebula", "星云"],
  ["Osprey", "鱼鹰"],
  ["Panda", "熊猫"],
  ["Quartz", "石英"],
  ["Raven", "渡鸦"],
  ["Sequoia", "红杉"],
  ["Tundra", "苔原"],
  ["Umbra", "暗影"],
  ["Vega", "织女星"],
  ["Willow", "柳树"],
  ["Yangtze", "长江"],
  ["Zephyr", "西风"],
  ["Crane", "仙鹤"],
  ["Phoenix", "凤凰"],
  ["Summit", "峰顶"],
  ["Tidal", "潮汐"],
];
export const PROJECTS: readonly Pair[] = PROJECT_NAMES.map(([en, zh]) =>
  pair(en.toLowerCase().replace(/ /g, ""), en, zh),
);
export const TOPICS: readonly Pair[] = [
  pair("deploy", "deploy target", "部署环境"),
  pair("budget", "budget", "预算"),
  pair("deadline", "deadline", "截止日期"),
  pair("release", "release plan", "发布计划"),
  pair("meeting", "weekly meeting", "周会"),
  pair("invoice", "invoice process", "发票流程"),
  pair("migration", "database migration", "数据库迁移"),
  pair("onboarding", "onboarding checklist", "入职清单"),
  pair("oncall", "on-call rotation", "值班安排"),
  pair("pricing", "pricing model", "定价模型"),
  pair("security", "security review", "安全评审"),
  pair("design", "design review", "设计评审"),
  pair("hiring", "hiring plan", "招聘计划"),
  pair("roadmap", "quarterly roadmap", "季度路线图"),
  pair("vendor", "vendor contract", "供应商合同"),
  pair("backup", "backup policy", "备份策略"),
  pair("latency", "latency budget", "延迟指标"),
  pair("training", "staff training", "员工培训"),
  pair("marketing", "marketing launch", "市场推广"),
  pair("audit", "compliance audit", "合规审计"),
];
const PEOPLE_NAMES: readonly [string, string][] = [
  ["Zhang Wei", "张伟"],
  ["Li Na", "李娜"],
  ["Wang Fang", "王芳"],
  ["Chen Jie", "陈杰"],
  ["Liu Yang", "刘洋"],
  ["Zhao Lei", "赵磊"],
  ["Huang Min", "黄敏"],
  ["Zhou Tao", "周涛"],
  ["Wu Xia", "吴霞"],
  ["Xu Bin", "徐斌"],
  ["Sun Li", "孙丽"],
  ["Ma Jun", "马军"],
  ["Alice", "爱丽丝"],
  ["Bob", "鲍勃"],
  ["Carlos", "卡洛斯"],
  ["Priya", "普丽娅"],
  ["Yuki", "由纪"],
  ["Omar", "奥马尔"],
  ["Greta", "格蕾塔"],
  ["Tomás", "托马斯"],
  ["Amara", "阿玛拉"],
  ["Lukas", "卢卡斯"],
  ["Mei", "小美"],
  ["Ivan", "伊万"],
];
export const PEOPLE: readonly Pair[] = PEOPLE_NAMES.map(([en, zh]) =>
  pair(
    en
      .toLowerCase()
      .normalize("NFD")
      .replace(/[^a-z ]/g, "")
      .replace(/ /g, "_"),
    en,
    zh,
  ),
);
const RELATIONS: readonly Pair[] = [
  pair("colleague", "colleague", "同事"),
  pair("manager", "manager", "经理"),
  pair("sister", "sister", "姐姐"),
  pair("friend", "friend", "朋友"),
  pair("wife", "wife", "妻子"),
  pair("mentor", "mentor", "导师"),
];
const DISHES: readonly Pair[] = [
  pair("番茄炒蛋", "tomato scrambled eggs", "番茄炒蛋"),
  pair("mapo_tofu", "mapo tofu", "麻婆豆腐"),
  pair("红烧肉", "braised pork belly", "红烧肉"),
  pair("carbonara", "pasta carbonara", "培根意面"),
  pair("dumplings", "pork dumplings", "猪肉饺子"),
  pair("fried_rice", "egg fried rice", "蛋炒饭"),
];
const OCCUPATIONS: readonly Pair[] = [
  pair("backend", "backend engineer", "后端工程师"),
  pair("designer", "product designer", "产品设计师"),
  pair("teacher", "teacher", "老师"),
  pair("doctor", "doctor", "医生"),
  pair("pm", "product manager", "产品经理"),
  pair("analyst", "data analyst", "数据分析师"),
];
const HABITS: readonly Pair[] = [
  pair("running", "runs every morning at seven", "每天早上七点跑步"),
  pair("bike", "rides a Brompton bike to work", "骑折叠自行车上班"),
  pair("coffee", "drinks oat milk flat whites", "喝燕麦拿铁"),
  pair("reading", "reads science fiction before bed", "睡前读科幻小说"),
  pair("piano", "practises piano on weekends", "周末练钢琴"),
  pair("wifi", "office wifi is called acme-guest", "办公室无线网络叫 acme-guest"),
  pair("parking", "parks on level B2", "车停在负二层"),
  pair("gym", "goes to the gym on Tuesdays", "每周二去健身房"),
];
const COMM: readonly Pair[] = [
  pair("length", "prefers concise answers", "喜欢简洁的回答"),
  pair("tone", "likes a friendly, informal tone", "喜欢轻松友好的语气"),
  pair("format", "wants bullet points for plans", "计划请用要点列出"),
  pair("emoji", "no emoji in replies", "回复里不要用表情符号"),
];
const STATES: readonly Pair[] = [
  pair("health", "has an upset stomach today", "今天胃不舒服"),
  pair("travel", "is travelling this week", "这周在出差"),
  pair("mood", "is tired after a long week", "这周很累"),
];
const DIETS: readonly Pair[] = [
  pair("vegetarian", "vegetarian", "素食"),
  pair("low_sugar", "low sugar", "低糖"),
  pair("halal", "halal", "清真"),
  pair("low_salt", "low salt", "少盐"),
];

export type CardSpec = {
  kind: string;
  itemKey?: string;
  title: string;
  content: string;
  valueJson: unknown;
  tags: string[];
  entities: string[];
};

const say = (lang: Lang, en: string, zh: string) => (lang === "en" ? en : lang === "zh" ? zh : `${zh} (${en})`);

/** Single-slot kinds every user profile carries once (non-itemized: one active card per scope). */
export function profileCards(r: Rng, userName: string): CardSpec[] {
  const lang: Lang = r.pick(["en", "zh", "mixed"] as const);
  const city = r.pick(CITIES);
  const job = r.pick(OCCUPATIONS);
  const project = r.pick(PROJECTS);
  return [
    {
      kind: "profile_name",
      title: say(lang, "Name", "名字"),
      content: say(lang, `The user's name is ${userName}.`, `用户叫${userName}。`),
      valueJson: { name: userName },
      tags: ["profile"],
      entities: [userName],
    },
    {
      kind: "home_location",
      title: say(lang, `Lives in ${city.en}`, `住在${city.zh}`),
      content: say(lang, `The user lives in ${city.en}.`, `用户住在${city.zh}。`),
      valueJson: { city: city.en },
      tags: ["location"],
      entities: [city.en],
    },
    {
      kind: "occupation",
      title: say(lang, job.en, job.zh),
      content: say(lang, `Works as a ${job.en}.`, `职业是${job.zh}。`),
      valueJson: job.en,
      tags: ["work"],
      entities: [],
    },
    {
      kind: "timezone_preference",
      title: say(lang, "Time zone", "时区"),
      content: say(lang, "Schedules in Asia/Shanghai time.", "按北京时间安排日程。"),
      valueJson: r.pick(["Asia/Shanghai", "Europe/Lisbon", "Europe/Berlin", "Asia/Tokyo"]),
      tags: ["time"],
      entities: [],
    },
    {
      kind: "language_preference",
      title: say(lang, "Language", "语言"),
      content: say(lang, "Reply in English.", "请用中文回复。"),
      valueJson: lang === "en" ? "English" : "zh-CN",
      tags: ["language"],
      entities: [],
    },
    {
      kind: "flavor_profile",
      title: say(lang, "Flavour", "口味"),
      content: say(lang, "Likes little oil and mild spice.", "喜欢少油少辣。"),
      valueJson: { spicy: "low", oil: "low" },
      tags: ["cooking"],
      entities: [],
    },
    {
      kind: "long_term_goal",
      title: say(lang, `Ship ${project.en}`, `完成${project.zh}项目`),
      content: say(lang, `Wants to ship the ${project.en} project this year.`, `今年想把${project.zh}项目上线。`),
      valueJson: { goal: `ship ${project.en}` },
      tags: ["goal"],
      entities: [project.en],
    },
    {
      kind: "hard_constraint",
      title: say(lang, "No meetings before 10", "十点前不开会"),
      content: say(lang, "Never schedule meetings before 10 am.", "上午十点之前不要安排会议。"),
      valueJson: "no meetings before 10",
      tags: ["schedule"],
      entities: [],
    },
  ];
}

/** An itemized card for a user or shared scope; `n` keeps item keys unique within the scope. */
export function itemCard(r: Rng, scopeType: "user" | "session" | "workspace" | "global", n: number): CardSpec {
  const lang: Lang = r.pick(["en", "zh", "zh", "en", "mixed"] as const);
  const choices =
    scopeType === "user"
      ? ["food", "food", "relationship", "habit", "habit", "comm", "project", "diet", "recipe", "fact"]
      : scopeType === "session"
        ? ["task", "task", "state", "project", "fact", "habit"]
        : scopeType === "workspace"
          ? ["project", "project", "task", "fact"]
          : ["fact", "project"];
  const what = r.pick(choices);
  const suffix = `_${n}`;
  switch (what) {
    case "food": {
      const f = r.pick(FOODS);
      const allergy = r.chance(0.5);
      return {
        kind: "food_avoidance",
        itemKey: `${f.key}${suffix}`,
        title: say(lang, allergy ? `${f.en} allergy` : `Avoids ${f.en}`, allergy ? `${f.zh}过敏` : `不吃${f.zh}`),
        content: say(
          lang,
          allergy
            ? `The user is allergic to ${f.en}; never suggest dishes with it.`
            : `The user dislikes ${f.en} and avoids it when cooking.`,
          allergy ? `用户对${f.zh}过敏，推荐菜谱时不要包含${f.zh}。` : `用户不喜欢${f.zh}，做饭时别放${f.zh}。`,
        ),
        valueJson: { food: f.en, reason: allergy ? "allergy" : "dislike" },
        tags: ["food", allergy ? "allergy" : "dislike"],
        entities: [f.en],
      };
    }
    case "relationship": {
      const p = r.pick(PEOPLE);
      const rel = r.pick(RELATIONS);
      const topic = r.pick(TOPICS);
      return {
        kind: "personal_relationship",
        itemKey: `${p.key}${suffix}`,
        title: say(lang, `${p.en}, ${rel.en}`, `${p.zh}（${rel.zh}）`),
        content: say(
          lang,
          `${p.en} is the user's ${rel.en} and handles the ${topic.en}.`,
          `${p.zh}是用户的${rel.zh}，负责${topic.zh}。`,
        ),
        valueJson: { name: p.en, relation: rel.en },
        tags: ["people"],
        entities: [p.en],
      };
    }
    case "habit":
    case "fact": {
      const h = r.pick(HABITS);
      return {
        kind: "custom_fact",
        itemKey: `${h.key}${suffix}`,
        title: say(lang, h.en, h.zh),
        content: say(lang, `The user ${h.en}.`, `用户${h.zh}。`),
        valueJson: r.chance(0.5) ? { note: h.en } : null,
        tags: ["habit"],
        entities: [],
      };
    }
    case "comm": {
      const c = r.pick(COMM);
      return {
        kind: "communication_preference",
        itemKey: `${c.key}${suffix}`,
        title: say(lang, c.en, c.zh),
        content: say(lang, `The user ${c.en}.`, `用户${c.zh}。`),
        valueJson: c.en,
        tags: ["style"],
        entities: [],
      };
    }
    case "project": {
      const p = r.pick(PROJECTS);
      const t = r.pick(TOPICS);
      const city = r.pick(CITIES);
      const amount = 1 + r.int(20);
      return {
        kind: "project_context",
        itemKey: `${p.key}_${t.key}${suffix}`,
        title: say(lang, `${p.en} ${t.en}`, `${p.zh}项目${t.zh}`),
        content: say(
          lang,
          `The ${p.en} project's ${t.en} is owned by the ${city.en} team; next checkpoint in week ${amount}.`,
          `${p.zh}项目的${t.zh}由${city.zh}团队负责，第 ${amount} 周检查进度。`,
        ),
        valueJson: { project: p.en, topic: t.en, owner: city.en },
        tags: ["project", t.key],
        entities: [p.en, city.en],
      };
    }
    case "diet": {
      const d = r.pick(DIETS);
      return {
        kind: "dietary_restriction",
        itemKey: `${d.key}${suffix}`,
        title: say(lang, d.en, d.zh),
        content: say(lang, `The user eats ${d.en}.`, `用户饮食要求：${d.zh}。`),
        valueJson: d.en,
        tags: ["food"],
        entities: [],
      };
    }
    case "recipe": {
      const d = r.pick(DISHES);
      const f = r.pick(FOODS);
      return {
        kind: "recipe",
        itemKey: `${d.key}${suffix}`,
        title: say(lang, d.en, d.zh),
        content: say(
          lang,
          `The user's ${d.en}: no ${f.en}, fifteen minutes, serve hot.`,
          `用户的${d.zh}做法：不放${f.zh}，十五分钟出锅。`,
        ),
        valueJson: { notes: `no ${f.en}` },
        tags: ["cooking", "recipe"],
        entities: [],
      };
    }
    case "task": {
      const p = r.pick(PROJECTS);
      const t = r.pick(TOPICS);
      return {
        kind: "active_task",
        itemKey: `${p.key}_${t.key}${suffix}`,
        title: say(lang, `Prepare the ${p.en} ${t.en}`, `准备${p.zh}的${t.zh}`),
        content: say(
          lang,
          `Next step: prepare the ${p.en} ${t.en} and send it to the team by Friday.`,
          `下一步：准备${p.zh}的${t.zh}，周五前发给团队。`,
        ),
        valueJson: { task: `${p.en} ${t.en}`, status: "open" },
        tags: ["task"],
        entities: [p.en],
      };
    }
    default: {
      const s = r.pick(STATES);
      return {
        kind: "temporary_state",
        itemKey: `${s.key}${suffix}`,
        title: say(lang, s.en, s.zh),
        content: say(lang, `The user ${s.en}.`, `用户${s.zh}。`),
        valueJson: s.en,
        tags: ["state"],
        entities: [],
      };
    }
  }
}

/** Questions an agent asks (bilingual, some mixed), all answerable from the corpus' vocabulary. */
export function queryBank(): string[] {
  const q: string[] = [];
  for (const f of FOODS) q.push(`is the user allergic to ${f.en}?`, `我对${f.zh}过敏吗`, `dishes without ${f.en}`);
  PROJECTS.forEach((p, i) => {
    const t = TOPICS[i % TOPICS.length]!;
    q.push(
      `${p.en} ${t.en}`,
      `${p.zh}项目的${t.zh}是什么`,
      i % 2 ? `who owns the ${p.en} project?` : `${p.zh}项目谁负责`,
    );
  });
  for (const t of TOPICS) q.push(`${t.zh}`, `what is the ${t.en}?`);
  for (const p of PEOPLE) q.push(`who is ${p.en}`, `${p.zh}是谁`);
  for (const c of CITIES) q.push(`do I live in ${c.en}?`, `我住在${c.zh}吗`);
  q.push(
    "what time zone am I in",
    "喜欢什么口味",
    "how should you reply to me",
    "回复的时候用什么语气",
    "what are my long term goals",
    "今天身体怎么样",
    "recipes with eggs",
    "番茄炒蛋怎么做",
    "office wifi name",
    "周末做什么",
    "meetings before 10",
    "Hermes 项目 budget",
  );
  return q;
}

/** One realistic message exchange for a session (evidence and recent context). */
export function sessionMessages(r: Rng): { role: "user" | "assistant"; content: string }[] {
  const f = r.pick(FOODS);
  const p = r.pick(PROJECTS);
  const t = r.pick(TOPICS);
  return r.chance(0.5)
    ? [
        { role: "user", content: `记住：${p.zh}项目的${t.zh}下周定下来，预算别超过 5 万。` },
        { role: "assistant", content: `好的，我记下了${p.zh}项目的${t.zh}。` },
        { role: "user", content: `另外我不吃${f.zh}，推荐菜的时候注意。` },
        { role: "assistant", content: `明白，以后推荐菜谱不放${f.zh}。` },
        { role: "user", content: "谢谢！" },
        { role: "assistant", content: "不客气。" },
      ]
    : [
        { role: "user", content: `Please remember the ${p.en} ${t.en} is due next Friday.` },
        { role: "assistant", content: `Noted: the ${p.en} ${t.en} is due next Friday.` },
        { role: "user", content: `Also, I'm allergic to ${f.en}.` },
        { role: "assistant", content: `Got it, no ${f.en} in any suggestion.` },
        { role: "user", content: "Thanks, that's all for now." },
        { role: "assistant", content: "Anytime." },
      ];
}
