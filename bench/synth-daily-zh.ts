/**
 * A made-up Chinese daily-life log, for diagnosis only: many short stories about people the speaker
 * knows (a relative, a colleague, a neighbour), each person's facts told in short first-person
 * messages, pooled into one log per conversation with chit-chat between them, one speaker, one session,
 * no timestamps. Questions about those people: by name, by relation, by a described attribute, two
 * people compared, a group counted, a fact to compute on, and a question inside chit-chat.
 *   npx tsx bench/synth-daily-zh.ts [--conversations 8] [--stories 24] [--seed 7] [--name synth-daily-zh] [--wrapped 0] [--wrap-length 1] [--pronouns 0]
 * Nothing is taken from any dataset: names, facts and sentences come from the small lists below and
 * a seeded generator, so a ranking change can be checked on a shape the given sets lack (short
 * factual statements about named people, many alike). It is not a given set: use it to find failure
 * classes, never to fit a weight.
 */
import path from "node:path";
import { rng, type Rng } from "./load/corpus";
import { parseArgs, writeDataset, type EvalDataset, type EvalMessage, type EvalQuery } from "./lib/eval-format";

const SURNAMES =
  "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤".split(
    "",
  );
const GIVEN = [
  ..."伟芳娜敏静丽强磊军洋勇艳杰娟涛明超霞平刚文华鹏辉婷雪琳晨宇浩凯欣怡佳颖倩峰亮斌波健坤".split(""),
  ..."秀英 建华 子涵 思远 雨萱 梓轩 志强 海燕 晓东 春梅 国庆 丽华 俊杰 嘉怡 宏伟 雅琴 文博 一鸣 心怡 天佑 立新 红霞 少华 美玲".split(
    " ",
  ),
];
const RELATIONS = [
  "表哥",
  "表姐",
  "堂弟",
  "堂妹",
  "妹妹",
  "哥哥",
  "姐姐",
  "弟弟",
  "舅舅",
  "姑姑",
  "阿姨",
  "叔叔",
  "同事",
  "老同学",
  "室友",
  "邻居",
  "朋友",
  "领导",
  "大学同学",
  "发小",
  "闺蜜",
  "健身教练",
];
const OCCUPATIONS = [
  "医生",
  "律师",
  "程序员",
  "小学老师",
  "会计",
  "厨师",
  "护士",
  "建筑师",
  "销售经理",
  "摄影师",
  "平面设计师",
  "警察",
  "记者",
  "药剂师",
  "公务员",
  "牙医",
  "飞行员",
  "翻译",
];
const EMPLOYERS = [
  "华为",
  "腾讯",
  "阿里巴巴",
  "中国银行",
  "市人民医院",
  "实验中学",
  "万科",
  "京东",
  "小米",
  "百度",
  "联想",
  "国家电网",
  "顺丰",
  "中石化",
  "招商银行",
  "网易",
];
const CITIES = [
  "北京",
  "上海",
  "广州",
  "深圳",
  "杭州",
  "成都",
  "武汉",
  "南京",
  "西安",
  "重庆",
  "天津",
  "苏州",
  "长沙",
  "青岛",
  "厦门",
  "昆明",
  "大连",
  "郑州",
];
const HOBBIES = [
  "钓鱼",
  "打羽毛球",
  "弹吉他",
  "爬山",
  "下象棋",
  "画油画",
  "游泳",
  "拍照",
  "跑马拉松",
  "做烘焙",
  "养多肉",
  "打篮球",
  "练书法",
  "跳广场舞",
  "玩剧本杀",
  "骑行",
];
const SCHOOLS = [
  "北京大学",
  "复旦大学",
  "浙江大学",
  "武汉大学",
  "中山大学",
  "四川大学",
  "南京大学",
  "厦门大学",
  "山东大学",
  "同济大学",
  "湖南大学",
  "吉林大学",
];
const FOODS = [
  "火锅",
  "饺子",
  "小龙虾",
  "红烧肉",
  "麻辣烫",
  "寿司",
  "烤鸭",
  "螺蛳粉",
  "煎饼果子",
  "酸菜鱼",
  "羊肉串",
  "肠粉",
];
const PETS = [
  "一只橘猫",
  "一只金毛",
  "一只柯基",
  "两只鹦鹉",
  "一只布偶猫",
  "一缸金鱼",
  "一只仓鼠",
  "一只泰迪",
  "一只乌龟",
  "一只哈士奇",
];
const CARS = ["特斯拉", "比亚迪", "丰田卡罗拉", "大众帕萨特", "本田雅阁", "宝马三系", "五菱宏光", "理想"];

type Attribute = {
  key: string;
  value: (r: Rng) => string;
  /** Statements: `{n}` the person (name or relation), `{v}` the value. */
  say: string[];
  /** Questions by the person: `{n}`. */
  ask: string[];
  /** A description of a person by this attribute, for a question that does not name them: `{v}`. */
  describe?: string[];
};

const ATTRIBUTES: Attribute[] = [
  {
    key: "age",
    value: (r) => String(20 + r.int(45)),
    say: ["{n}今年{v}岁了。", "说起来{n}都已经{v}岁了，时间过得真快。", "{n}今年{v}，比看上去要大。"],
    ask: ["{n}今年多大了？", "{n}多少岁？", "{n}现在几岁？"],
    describe: ["{v}岁的"],
  },
  {
    key: "occupation",
    value: (r) => r.pick(OCCUPATIONS),
    say: ["{n}是一名{v}。", "{n}现在做{v}，已经干了好几年。", "{n}的工作是{v}，平时挺忙的。"],
    ask: ["{n}是做什么工作的？", "{n}的职业是什么？", "{n}从事什么职业？"],
    describe: ["当{v}的", "做{v}的"],
  },
  {
    key: "employer",
    value: (r) => r.pick(EMPLOYERS),
    say: ["{n}在{v}上班。", "{n}去年跳槽去了{v}。", "{n}一直在{v}工作，待遇还不错。"],
    ask: ["{n}在哪家单位上班？", "{n}在哪个公司工作？", "{n}现在在哪上班？"],
    describe: ["在{v}上班的"],
  },
  {
    key: "workCity",
    value: (r) => r.pick(CITIES),
    say: ["{n}在{v}工作。", "{n}工作调到{v}去了。", "{n}一个人在{v}打拼。"],
    ask: ["{n}在哪个城市工作？", "{n}在哪里工作？"],
    describe: ["在{v}工作的"],
  },
  {
    key: "hometown",
    value: (r) => r.pick(CITIES),
    say: ["{n}老家是{v}的。", "{n}是在{v}长大的。", "{n}的家乡在{v}。"],
    ask: ["{n}的老家在哪？", "{n}是哪里人？", "{n}的家乡是哪里？"],
    describe: ["老家在{v}的"],
  },
  {
    key: "hobby",
    value: (r) => r.pick(HOBBIES),
    say: ["{n}平时最喜欢{v}。", "{n}一到周末就去{v}。", "{n}迷上了{v}，天天在研究。"],
    ask: ["{n}有什么爱好？", "{n}周末喜欢干什么？", "{n}平时喜欢做什么？"],
    describe: ["喜欢{v}的"],
  },
  {
    key: "birthday",
    value: (r) => `${1 + r.int(12)}月${1 + r.int(28)}日`,
    say: ["{n}的生日是{v}。", "{n}是{v}出生的。", "{v}是{n}的生日，得提前准备礼物。"],
    ask: ["{n}的生日是哪天？", "{n}什么时候过生日？"],
  },
  {
    key: "height",
    value: (r) => String(155 + r.int(35)),
    say: ["{n}身高{v}厘米。", "{n}个子挺高，有{v}厘米。", "{n}量了一下身高，{v}厘米。"],
    ask: ["{n}有多高？", "{n}的身高是多少？"],
  },
  {
    key: "school",
    value: (r) => r.pick(SCHOOLS),
    say: ["{n}是{v}毕业的。", "{n}当年考上了{v}。", "{n}大学读的是{v}。"],
    ask: ["{n}是哪个学校毕业的？", "{n}读的哪所大学？"],
    describe: ["{v}毕业的"],
  },
  {
    key: "food",
    value: (r) => r.pick(FOODS),
    say: ["{n}特别爱吃{v}。", "{n}最喜欢的菜是{v}。", "每次聚餐{n}都要点{v}。"],
    ask: ["{n}喜欢吃什么？", "{n}最爱吃什么菜？"],
  },
  {
    key: "pet",
    value: (r) => r.pick(PETS),
    say: ["{n}家里养了{v}。", "{n}前阵子领养了{v}。", "{n}每天下班都要陪{v}玩。"],
    ask: ["{n}养了什么宠物？", "{n}家有什么宠物？"],
    describe: ["养了{v}的"],
  },
  {
    key: "car",
    value: (r) => r.pick(CARS),
    say: ["{n}开的是{v}。", "{n}刚提了一辆{v}。", "{n}的车是{v}。"],
    ask: ["{n}开什么车？", "{n}的车是什么牌子？"],
  },
];

const INTRO = [
  "我{r}叫{n}。",
  "给你介绍一下，{n}是我的{r}。",
  "我有个{r}，名字叫{n}。",
  "{n}是我{r}，我们关系很好。",
  "跟你说说我{r}{n}吧。",
  "{n}是我{r}，认识很多年了。",
  "我{r}的名字是{n}。",
  "你还记得{n}吗？是我{r}。",
];
const CHATTER_HEAD = ["今天", "昨天", "刚才", "这周", "最近", "早上", "晚上", "周末"];
const CHATTER_BODY = [
  "天气真不错，出门走了走",
  "下了一整天的雨",
  "加班到很晚，好累",
  "吃了一顿火锅，有点撑",
  "睡得不太好",
  "在家看了一部电影",
  "去超市买了好多东西",
  "心情特别好",
  "地铁上人好多",
  "工作上的事情有点烦",
  "收到一个快递",
  "去公园跑了几圈",
  "和朋友聊了很久",
  "做了一顿饭，味道还行",
  "手机屏幕摔碎了",
  "开了一上午的会",
  "想去旅游了",
  "喝了两杯咖啡还是困",
  "学了一点新东西",
  "打扫了一下房间",
  "在上班的路上堵车了",
  "想学弹吉他",
  "看到一只很可爱的猫",
  "城里到处在修路",
  "去医院体检了",
];
const CHATTER_TAIL = ["。", "，你觉得呢？", "，真是的。", "，哈哈。", "，有点无聊。", "，还挺开心的。"];
const WRAP_JOIN = ["对了，", "说到这个，", "顺便一提，", "哦还有，"];
const WRAP_TAIL = ["", "反正就这样吧。", "不说了，先去忙了。", "你最近怎么样？"];
const NOISE_LEAD = ["哎，今天有点累。", "刚吃完饭，随便问问。", "外面下雨了，对了，", "跟你说个事，", "我突然想起来，"];

type Fact = {
  attribute: Attribute;
  value: string;
  id: string;
  byRelation: boolean;
  inChatter: boolean;
  /** Told by 他 or 她 right after another line about the same person (`--pronouns P`). */
  byPronoun?: boolean;
};
type Person = { name: string; relation: string; facts: Map<string, Fact>; introId: string };

/**
 * A fact told by relation ("我邻居…") and asked by name needs the introduction as well. One told by a
 * pronoun counts alone: the line before names the person, but only this one holds the answer.
 */
function evidenceFor(person: Person, fact: Fact): string[] {
  return fact.byRelation ? [fact.id, person.introId] : [fact.id];
}

/** Stands for the person's name in a fact until the story's order decides between the name and a pronoun. */
const SUBJECT = "\u0001";

export type DailyLogOptions = {
  conversations: number;
  /** Stories per conversation, each about one to three people. */
  stories: number;
  seed: number;
  /** Share of facts told inside a chit-chat message (0: none). */
  wrapped: number;
  /** Chit-chat sentences at most on each side of a wrapped fact (1: one before it). */
  wrapLength?: number;
  /** Share of facts told by 他 or 她 when the story's line before is about the same person (0: none). */
  pronouns?: number;
  name: string;
};

/** The log and its questions, the same for the same options. */
export function synthDailyLog(options: DailyLogOptions): EvalDataset {
  const r = rng(options.seed);
  const conversations: { id: string; messages: EvalMessage[] }[] = [];
  const queries: EvalQuery[] = [];
  for (let c = 0; c < options.conversations; c++) {
    const conversationId = `d${c}`;
    const { messages, people } = tellStories(r, conversationId, options);
    conversations.push({ id: conversationId, messages });
    queries.push(...askAbout(r, conversationId, people));
  }
  return {
    format: "memory-eval/v1",
    name: options.name,
    conversations,
    queries,
    notes: {
      made: "bench/synth-daily-zh.ts, a seeded generator; diagnosis only",
      messages: conversations.map((c) => c.messages.length),
    },
  };
}

/** One conversation's log: its stories' statements with chit-chat between them, and the people they are about. */
function tellStories(
  r: Rng,
  conversationId: string,
  options: Pick<DailyLogOptions, "stories" | "wrapped" | "wrapLength" | "pronouns">,
): { messages: EvalMessage[]; people: Person[] } {
  const usedNames = new Set<string>();
  const people: Person[] = [];
  const stories: EvalMessage[][] = [];
  // Each story line's person, and the fact a fact line tells.
  const aboutWhom = new Map<string, Person>();
  const factOf = new Map<string, Fact>();
  let seq = 0;
  const nextId = () => `${conversationId}-m${seq++}`;
  for (let s = 0; s < options.stories; s++) {
    const story: EvalMessage[] = [];
    const count = 1 + r.int(3);
    for (let p = 0; p < count; p++) {
      let name = "";
      do name = r.pick(SURNAMES) + r.pick(GIVEN);
      while (usedNames.has(name));
      usedNames.add(name);
      const relation = r.pick(RELATIONS);
      const introId = nextId();
      story.push({ id: introId, role: "user", content: fill(r.pick(INTRO), { r: relation, n: name }) });
      const person: Person = { name, relation, facts: new Map(), introId };
      aboutWhom.set(introId, person);
      for (const attribute of shuffle(r, ATTRIBUTES).slice(0, 5 + r.int(4))) {
        const value = attribute.value(r);
        const id = nextId();
        // Some facts name the relation instead of the person, as people do.
        const byRelation = r.chance(0.25);
        // The subject is filled in once the story's order is known (a pronoun needs the line before).
        const said = fill(r.pick(attribute.say), { n: byRelation ? `我${relation}` : SUBJECT, v: value });
        // `--wrapped P`: a share of facts told inside chit-chat, one message.
        const inChatter = options.wrapped > 0 && r.chance(options.wrapped);
        const content = inChatter ? wrapInChatter(r, said, options.wrapLength ?? 1) : said;
        story.push({ id, role: "user", content });
        const fact: Fact = { attribute, value, id, byRelation, inChatter };
        person.facts.set(attribute.key, fact);
        aboutWhom.set(id, person);
        factOf.set(id, fact);
      }
      people.push(person);
    }
    // A story's statements come in a loose order, its people's facts interleaved.
    stories.push([story[0]!, ...shuffle(r, story.slice(1))]);
  }
  const messages: EvalMessage[] = [];
  for (const m of stories.flat()) {
    messages.push(m);
    while (r.chance(0.45)) messages.push({ id: nextId(), role: "user", content: chatter(r) });
  }
  // A fact right after a line about the same person may call them 他 or 她 (`--pronouns P`).
  const pronouns = options.pronouns ?? 0;
  const pronounOf = new Map<Person, string>();
  messages.forEach((m, i) => {
    if (!m.content.includes(SUBJECT)) return;
    const person = aboutWhom.get(m.id)!;
    const before = i > 0 ? aboutWhom.get(messages[i - 1]!.id) : undefined;
    if (pronouns > 0 && before === person && r.chance(pronouns)) {
      if (!pronounOf.has(person)) pronounOf.set(person, r.chance(0.5) ? "他" : "她");
      m.content = m.content.replace(SUBJECT, pronounOf.get(person)!);
      factOf.get(m.id)!.byPronoun = true;
    } else m.content = m.content.replace(SUBJECT, person.name);
  });
  return { messages, people };
}

/** The questions about one conversation's people, each with the messages that answer it. */
function askAbout(r: Rng, conversationId: string, people: readonly Person[]): EvalQuery[] {
  const queries: EvalQuery[] = [];
  const ask = (question: string, evidence: string[], category: string) =>
    queries.push({ id: `${conversationId}-q${queries.length}`, conversationId, question, evidence, category });
  for (const person of people) {
    const facts = [...person.facts.values()];
    const evidenceOf = (f: Fact) => evidenceFor(person, f);
    const named = facts.filter((f) => !f.byRelation);
    const fact = r.pick(named.length ? named : facts);
    const question = fill(r.pick(fact.attribute.ask), { n: person.name });
    ask(question, evidenceOf(fact), fact.inChatter ? "in-chatter" : fact.byPronoun ? "by-pronoun" : "simple");
    if (r.chance(0.5)) ask(r.pick(NOISE_LEAD) + chatter(r) + question, evidenceOf(fact), "noisy");
    // By relation: the introduction names who the relation is.
    if (r.chance(0.5)) {
      const f2 = r.pick(facts);
      ask(fill(r.pick(f2.attribute.ask), { n: `我${person.relation}${person.name}` }), evidenceOf(f2), "by-relation");
    }
    // Described, not named: "my colleague who works in Shenzhen — what does he drive?"
    const describable = facts.filter((f) => f.attribute.describe);
    if (describable.length && facts.length > 1 && r.chance(0.6)) {
      const described = r.pick(describable);
      const wanted = r.pick(facts.filter((f) => f !== described));
      const description = `我那个${fill(r.pick(described.attribute.describe!), { v: described.value })}${person.relation}`;
      // A description two people fit has no one answer; a fact told by name is tied to the relation by the introduction.
      const alike = people.some(
        (p) =>
          p !== person &&
          p.relation === person.relation &&
          p.facts.get(described.attribute.key)?.value === described.value,
      );
      const evidence = [
        described.id,
        wanted.id,
        ...(described.byRelation && wanted.byRelation ? [] : [person.introId]),
      ];
      if (!alike) ask(fill(r.pick(wanted.attribute.ask), { n: description }), evidence, "conditional");
    }
    const birthday = person.facts.get("birthday");
    if (birthday && r.chance(0.5)) ask(`${person.name}是什么星座的？`, evidenceOf(birthday), "post-processing");
    const age = person.facts.get("age");
    if (age && r.chance(0.5)) ask(`再过五年${person.name}多少岁？`, evidenceOf(age), "post-processing");
  }
  const compared = new Set<string>();
  for (let i = 0; i < people.length / 2; i++) {
    const key = r.pick(["age", "height"]);
    const pair = shuffle(
      r,
      people.filter((p) => p.facts.has(key)),
    ).slice(0, 2);
    if (pair.length < 2) continue;
    const [a, b] = pair as [Person, Person];
    // Two equal values answer nothing; a pair is asked about once.
    const asked = [a.name, b.name].sort().join("|") + key;
    if (a.facts.get(key)!.value === b.facts.get(key)!.value || compared.has(asked)) continue;
    compared.add(asked);
    const question = key === "age" ? `${a.name}和${b.name}谁年纪大？` : `${a.name}和${b.name}谁更高？`;
    ask(question, [...evidenceFor(a, a.facts.get(key)!), ...evidenceFor(b, b.facts.get(key)!)], "comparative");
  }
  for (const key of ["occupation", "workCity", "hobby", "school"]) {
    const byValue = new Map<string, string[]>();
    for (const p of people) {
      const f = p.facts.get(key);
      if (f) byValue.set(f.value, [...(byValue.get(f.value) ?? []), f.id]);
    }
    for (const [value, ids] of byValue) {
      if (ids.length < 2 || ids.length > 6 || !r.chance(0.5)) continue;
      const question = {
        occupation: `我认识的人里有几个是${value}？`,
        workCity: `我身边有哪些人在${value}工作？`,
        hobby: `我认识的人里谁喜欢${value}？`,
        school: `有几个人是${value}毕业的？`,
      }[key]!;
      ask(question, ids, "aggregative");
    }
  }
  return queries;
}

/** `--wrapped P`, `--pronouns P`: a share from 0 to 1. */
function share(value: string | true | undefined, option: string): number {
  const p = Number(value ?? 0);
  if (value === true || !(p >= 0 && p <= 1)) throw new Error(`${option} takes a share from 0 to 1, e.g. ${option} 0.3`);
  return p;
}

/** `--wrap-length N`: a whole number from 1. */
function count(value: string | true | undefined): number {
  const n = Number(value ?? 1);
  if (value === true || !Number.isInteger(n) || n < 1)
    throw new Error("--wrap-length takes a whole number from 1, e.g. --wrap-length 3");
  return n;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const dataset = synthDailyLog({
    conversations: Number(args.get("conversations") ?? 8),
    stories: Number(args.get("stories") ?? 24),
    seed: Number(args.get("seed") ?? 7),
    wrapped: share(args.get("wrapped"), "--wrapped"),
    wrapLength: count(args.get("wrap-length")),
    pronouns: share(args.get("pronouns"), "--pronouns"),
    name: String(args.get("name") ?? "synth-daily-zh"),
  });
  writeDataset(path.resolve(import.meta.dirname, `data/${dataset.name}.json`), dataset);
  const messages = dataset.conversations.reduce((n, c) => n + c.messages.length, 0);
  console.log(`${dataset.name}: ${messages} messages, ${dataset.queries.length} questions`);
}

/** A fact inside chit-chat: `length` chit-chat sentences at most before it, and as many after it, at least one in all. */
function wrapInChatter(r: Rng, said: string, length: number): string {
  if (length <= 1) return `${chatter(r)}${r.pick(WRAP_JOIN)}${said}${r.pick(WRAP_TAIL)}`;
  const before = Array.from({ length: 1 + r.int(length) }, () => chatter(r)).join("");
  const after = Array.from({ length: r.int(length) }, () => chatter(r)).join("");
  return `${before}${r.pick(WRAP_JOIN)}${said}${after}${r.pick(WRAP_TAIL)}`;
}

function chatter(r: Rng): string {
  return r.pick(CHATTER_HEAD) + r.pick(CHATTER_BODY) + r.pick(CHATTER_TAIL);
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w)\}/g, (_, k: string) => values[k] ?? "");
}

function shuffle<T>(r: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
