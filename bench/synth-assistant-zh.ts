/**
 * A made-up Chinese personal-assistant log for the recall benchmark (memory-eval/v1), written blind:
 * without reading the search code, its documentation or the other made-up logs, and never run
 * against the engine while it was written, so nothing in it is tuned to what the engine finds.
 *
 * One user per conversation talks to an assistant: about 25–45 people they know (relatives,
 * colleagues, classmates, neighbours, friends, clients, a doctor, the child's teacher …), the things
 * they bought, the places they go and the events they went to, told in many phrasings (a fact alone,
 * two or three in one message, one fact over two messages, by name, by relation, by 他/她 after a
 * line about the person, by a described attribute), interleaved with each other and with everyday
 * chatter (45–60 % of the log). A few facts change later (a move, a new job, a new car, a new phone, a
 * new child). The log is set in 2024; "now" is its end (2024-12-31).
 *
 * Six question kinds: simple, conditional, comparative, aggregative, post-processing, noisy. The
 * evidence of a question is every message holding a fact it needs, with the message(s) that tie a
 * pronoun, a relation or a description to the person where the question needs that tie; for a
 * changed fact the latest message (and the earlier one when the question asks about the change).
 * Count and list questions over a group cite the members that hold the asked value (all members
 * when the answer needs every one of them, as for a sum or "who is the tallest").
 *
 *   npx tsx bench/synth-assistant-zh.ts [--seed 7] [--name synth-assistant-zh]   → bench/data/<name>.json
 */
import fs from "node:fs";
import path from "node:path";

const YEAR = 2024;
const NOW = "2024-12-31";
const CONVERSATIONS = 5;
const MAX_EVIDENCE = 12;

// ───────────────────────────── arguments, random numbers

function argValue(flag: string): string | undefined {
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === `--${flag}`) return argv[i + 1];
    if (a !== undefined && a.startsWith(`--${flag}=`)) return a.slice(flag.length + 3);
  }
  return undefined;
}

/** mulberry32 */
class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  real(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }
  weighted<T>(options: readonly (readonly [T, number])[]): T {
    const total = options.reduce((s, o) => s + o[1], 0);
    let r = this.next() * total;
    for (const [v, w] of options) {
      r -= w;
      if (r < 0) return v;
    }
    const last = options[options.length - 1];
    if (!last) throw new Error("weighted: no options");
    return last[0];
  }
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const t = out[i] as T;
      out[i] = out[j] as T;
      out[j] = t;
    }
    return out;
  }
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, k);
  }
}

function uniq<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

// ───────────────────────────── numbers, dates and times in words

const DIGITS = "零一二三四五六七八九";
const digit = (n: number): string => DIGITS.charAt(n);

function cn(n: number, lead = true): string {
  if (n < 10) return digit(n);
  if (n < 20) return "十" + (n % 10 ? digit(n % 10) : "");
  if (n < 100) return digit(Math.floor(n / 10)) + "十" + (n % 10 ? digit(n % 10) : "");
  const tail = (r: number, unit: number): string => {
    if (r === 0) return "";
    const pad = r < unit / 10 ? "零" : "";
    return pad + (r >= 10 && r < 20 ? "一" + cn(r, false) : cn(r, false));
  };
  if (n < 1000) {
    const h = Math.floor(n / 100);
    return (h === 2 && lead ? "两" : digit(h)) + "百" + tail(n % 100, 100);
  }
  if (n < 10000) {
    const k = Math.floor(n / 1000);
    return (k === 2 && lead ? "两" : digit(k)) + "千" + tail(n % 1000, 1000);
  }
  const w = Math.floor(n / 10000);
  return (w === 2 && lead ? "两" : cn(w, lead)) + "万" + tail(n % 10000, 10000);
}

/** 2 → 两 (两个孩子), otherwise cn. */
const cnCount = (n: number): string => (n === 2 ? "两" : cn(n));

/** Short spoken prices: 2900 → 两千九, 12000 → 一万二; undefined where there is none. */
function cnPriceShort(n: number): string | undefined {
  if (n >= 1000 && n < 10000 && n % 100 === 0) {
    const k = Math.floor(n / 1000);
    const h = (n % 1000) / 100;
    return (k === 2 ? "两" : digit(k)) + "千" + (h ? digit(h) : "");
  }
  if (n >= 10000 && n < 100000 && n % 1000 === 0) {
    const w = Math.floor(n / 10000);
    const k = (n % 10000) / 1000;
    return (w === 2 ? "两" : digit(w)) + "万" + (k ? digit(k) : "");
  }
  return undefined;
}

interface YMD {
  y: number;
  m: number;
  d: number;
}
interface HM {
  h: number;
  min: number;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (m: number): number => DAYS_IN_MONTH[m - 1] ?? 30;
const WEEK = ["一", "二", "三", "四", "五", "六", "日"];
const ZODIAC = "鼠牛虎兔龙蛇马羊猴鸡狗猪";
const zodiac = (year: number): string => ZODIAC.charAt((((year - 4) % 12) + 12) % 12);
const dayOfYear = (d: YMD): number => {
  let n = d.d;
  for (let m = 1; m < d.m; m++) n += daysIn(m) + (m === 2 && d.y % 4 === 0 ? 1 : 0);
  return n;
};

// ───────────────────────────── word lists

type Gender = "M" | "F";

const SURNAMES: readonly (readonly [string, number])[] = [
  ["王", 9],
  ["李", 9],
  ["张", 8],
  ["刘", 7],
  ["陈", 7],
  ["杨", 5],
  ["黄", 4],
  ["赵", 4],
  ["吴", 4],
  ["周", 4],
  ["徐", 3],
  ["孙", 3],
  ["马", 3],
  ["朱", 3],
  ["胡", 3],
  ["郭", 2],
  ["何", 2],
  ["林", 2],
  ["罗", 2],
  ["高", 2],
  ["郑", 2],
  ["梁", 2],
  ["谢", 2],
  ["宋", 2],
  ["唐", 2],
  ["许", 1],
  ["韩", 1],
  ["冯", 1],
  ["邓", 1],
  ["曹", 1],
  ["彭", 1],
  ["曾", 1],
  ["田", 1],
  ["潘", 1],
  ["袁", 1],
  ["蒋", 1],
];
const MALE_CHARS = "伟强磊军勇杰涛明超浩鹏斌宇昊俊峰刚辉亮建国志文华海波飞龙凯晨阳鑫振东平林".split("");
const FEMALE_CHARS = "芳敏静丽娟霞婷雪燕玲佳欣怡琳倩丹颖萍红梅莉晶慧琪璐瑶月秀英兰晓思雨".split("");

const CITIES = [
  "北京",
  "上海",
  "广州",
  "深圳",
  "杭州",
  "苏州",
  "南京",
  "成都",
  "重庆",
  "武汉",
  "西安",
  "长沙",
  "天津",
  "青岛",
  "厦门",
  "合肥",
  "郑州",
  "宁波",
  "昆明",
  "大连",
];
interface Town {
  c: string;
  prov: string;
}
const TOWNS: Town[] = [
  { c: "常德", prov: "湖南" },
  { c: "烟台", prov: "山东" },
  { c: "绵阳", prov: "四川" },
  { c: "赣州", prov: "江西" },
  { c: "洛阳", prov: "河南" },
  { c: "桂林", prov: "广西" },
  { c: "大同", prov: "山西" },
  { c: "汕头", prov: "广东" },
  { c: "温州", prov: "浙江" },
  { c: "盐城", prov: "江苏" },
  { c: "宜昌", prov: "湖北" },
  { c: "齐齐哈尔", prov: "黑龙江" },
  { c: "延吉", prov: "吉林" },
  { c: "保定", prov: "河北" },
  { c: "遵义", prov: "贵州" },
  { c: "大理", prov: "云南" },
  { c: "天水", prov: "甘肃" },
  { c: "安庆", prov: "安徽" },
  { c: "泉州", prov: "福建" },
  { c: "榆林", prov: "陕西" },
];

interface Work {
  job: string;
  emp: string;
}
const JOBS: { job: string; emps: string[] }[] = [
  { job: "护士", emps: ["市人民医院", "中心医院", "妇幼保健院"] },
  { job: "医生", emps: ["市第一医院", "中医院", "儿童医院"] },
  { job: "律师", emps: ["金诚律师事务所", "大成律师事务所", "天衡律师事务所"] },
  { job: "程序员", emps: ["腾讯", "阿里巴巴", "字节跳动", "网易"] },
  { job: "中学老师", emps: ["实验中学", "外国语学校", "第二中学"] },
  { job: "会计", emps: ["立信会计师事务所", "普华永道"] },
  { job: "公务员", emps: ["税务局", "区政府", "海关"] },
  { job: "销售经理", emps: ["格力", "美的", "海尔"] },
  { job: "设计师", emps: ["蓝色光标", "华东建筑设计院"] },
  { job: "工程师", emps: ["中建三局", "国家电网", "比亚迪"] },
  { job: "客户经理", emps: ["工商银行", "招商银行", "建设银行"] },
  { job: "记者", emps: ["晚报", "电视台"] },
  { job: "警察", emps: ["城西派出所", "交警大队"] },
  { job: "厨师", emps: ["全聚德", "外婆家"] },
  { job: "药剂师", emps: ["同仁堂", "老百姓大药房"] },
  { job: "产品经理", emps: ["美团", "京东", "小红书"] },
  { job: "空乘", emps: ["东方航空", "南方航空"] },
  { job: "大学老师", emps: ["师范大学", "理工大学"] },
  { job: "保险代理", emps: ["平安保险", "中国人寿"] },
  { job: "房产中介", emps: ["链家", "我爱我家"] },
  { job: "研究员", emps: ["中科院", "农科院"] },
  { job: "摄影师", emps: ["婚纱影楼", "杂志社"] },
];
const COLLEAGUE_JOBS = [
  "产品经理",
  "前端工程师",
  "后端工程师",
  "UI设计师",
  "测试工程师",
  "运营",
  "会计",
  "人事",
  "销售",
];
const COMPANIES = ["星海科技", "云图网络", "蓝鲸数据", "远航软件", "晨光传媒", "青禾信息"];
const SPOUSE_JOBS = ["牙医", "厨师", "老师", "程序员", "会计", "律师", "警察", "护士", "工程师", "设计师"];

interface Hobby {
  n: string;
  v: string;
}
const HOBBIES: Hobby[] = [
  { n: "钓鱼", v: "去水库钓鱼" },
  { n: "爬山", v: "去爬山" },
  { n: "摄影", v: "背着相机出去拍照" },
  { n: "打羽毛球", v: "去打羽毛球" },
  { n: "打篮球", v: "去球场打篮球" },
  { n: "跑步", v: "去江边跑步" },
  { n: "游泳", v: "去游泳" },
  { n: "练书法", v: "在家练字" },
  { n: "下象棋", v: "去公园找人下棋" },
  { n: "弹吉他", v: "在家弹吉他" },
  { n: "烘焙", v: "在家烤蛋糕" },
  { n: "跳广场舞", v: "去广场跳舞" },
  { n: "骑行", v: "骑车出去转" },
  { n: "露营", v: "去郊外露营" },
  { n: "打麻将", v: "约人打麻将" },
  { n: "养花", v: "在阳台侍弄花草" },
  { n: "追剧", v: "窝在家里追剧" },
  { n: "滑雪", v: "去滑雪场" },
  { n: "练瑜伽", v: "去练瑜伽" },
  { n: "健身", v: "去健身房撸铁" },
  { n: "唱K", v: "去KTV唱歌" },
  { n: "看足球", v: "熬夜看球" },
  { n: "打游戏", v: "在家打游戏" },
  { n: "徒步", v: "去山里徒步" },
];
const FOODS = [
  "火锅",
  "酸菜鱼",
  "小龙虾",
  "烤鸭",
  "饺子",
  "螺蛳粉",
  "红烧肉",
  "寿司",
  "牛肉面",
  "麻辣烫",
  "烧烤",
  "煲仔饭",
  "糖醋排骨",
  "羊肉串",
  "肠粉",
  "小笼包",
  "披萨",
  "炸鸡",
];
interface Pet {
  kind: string;
  species: string;
  measure: string;
  name: string;
}
const PET_KINDS: { kind: string; species: string; measure: string }[] = [
  { kind: "金毛", species: "狗", measure: "条" },
  { kind: "柯基", species: "狗", measure: "只" },
  { kind: "泰迪", species: "狗", measure: "只" },
  { kind: "哈士奇", species: "狗", measure: "条" },
  { kind: "柴犬", species: "狗", measure: "只" },
  { kind: "边牧", species: "狗", measure: "条" },
  { kind: "比熊", species: "狗", measure: "只" },
  { kind: "橘猫", species: "猫", measure: "只" },
  { kind: "英短", species: "猫", measure: "只" },
  { kind: "布偶猫", species: "猫", measure: "只" },
  { kind: "狸花猫", species: "猫", measure: "只" },
  { kind: "鹦鹉", species: "鸟", measure: "只" },
  { kind: "仓鼠", species: "仓鼠", measure: "只" },
  { kind: "乌龟", species: "乌龟", measure: "只" },
  { kind: "兔子", species: "兔子", measure: "只" },
];
const PET_NAMES =
  "豆豆 年糕 可乐 旺财 球球 布丁 花卷 芝麻 奶茶 小黑 大黄 元宝 汤圆 馒头 雪球 咖啡 团子 七喜 糯米 土豆 阿福 多多 乐乐 毛毛".split(
    " ",
  );
const CARS = [
  "特斯拉",
  "比亚迪",
  "丰田",
  "本田",
  "大众",
  "宝马",
  "奔驰",
  "奥迪",
  "理想",
  "蔚来",
  "吉利",
  "小鹏",
  "别克",
  "马自达",
];
const PHONES = ["华为", "苹果", "小米", "OPPO", "vivo", "荣耀", "三星", "一加"];

// ───────────────────────────── relations and groups

type GroupKey =
  | "relatives"
  | "elders"
  | "paternal"
  | "maternal"
  | "biao"
  | "tang"
  | "colleagues"
  | "classmates"
  | "college"
  | "highschool"
  | "neighbours"
  | "friends"
  | "clients";
const GROUP_OWN: Record<GroupKey, string> = {
  relatives: "我的亲戚",
  elders: "家里的长辈",
  paternal: "我爸那边的亲戚",
  maternal: "我妈那边的亲戚",
  biao: "我的表兄弟姐妹",
  tang: "我的堂兄弟姐妹",
  colleagues: "我的同事",
  classmates: "我的同学",
  college: "我的大学同学",
  highschool: "我的高中同学",
  neighbours: "我的邻居",
  friends: "我的朋友",
  clients: "我的客户",
};
type DescLabel = "亲戚" | "同事" | "同学" | "邻居" | "朋友" | "客户";

interface RelDef {
  label: string;
  /** How the user says it: 我表妹, 我的牙医, 我儿子的班主任. */
  my: string;
  unique: boolean;
  gender?: Gender;
  /** Age range; relative to the user's age when `peer`. */
  age: [number, number];
  peer?: boolean;
  groups: GroupKey[];
  desc?: DescLabel;
  side?: "father" | "mother" | "either";
  kind: "relative" | "boss" | "colleague" | "school" | "neighbour" | "friend" | "client" | "service";
  fixedJob?: { jobs: string[]; emps: string[] };
}

const rel = (label: string, more: Omit<RelDef, "label" | "my"> & { my?: string }): RelDef => ({
  label,
  my: more.my ?? `我${label}`,
  ...more,
});

const RELATIVES: RelDef[] = [
  rel("姑姑", {
    unique: true,
    gender: "F",
    age: [46, 64],
    groups: ["relatives", "elders", "paternal"],
    desc: "亲戚",
    side: "father",
    kind: "relative",
  }),
  rel("叔叔", {
    unique: true,
    gender: "M",
    age: [38, 55],
    groups: ["relatives", "elders", "paternal"],
    desc: "亲戚",
    side: "father",
    kind: "relative",
  }),
  rel("大伯", {
    unique: true,
    gender: "M",
    age: [50, 66],
    groups: ["relatives", "elders", "paternal"],
    desc: "亲戚",
    side: "father",
    kind: "relative",
  }),
  rel("舅舅", {
    unique: true,
    gender: "M",
    age: [44, 62],
    groups: ["relatives", "elders", "maternal"],
    desc: "亲戚",
    side: "mother",
    kind: "relative",
  }),
  rel("姨妈", {
    unique: true,
    gender: "F",
    age: [46, 63],
    groups: ["relatives", "elders", "maternal"],
    desc: "亲戚",
    side: "mother",
    kind: "relative",
  }),
  rel("小姨", {
    unique: true,
    gender: "F",
    age: [34, 48],
    groups: ["relatives", "elders", "maternal"],
    desc: "亲戚",
    side: "mother",
    kind: "relative",
  }),
  rel("表哥", {
    unique: true,
    gender: "M",
    age: [1, 8],
    peer: true,
    groups: ["relatives", "biao"],
    desc: "亲戚",
    side: "either",
    kind: "relative",
  }),
  rel("表姐", {
    unique: true,
    gender: "F",
    age: [1, 8],
    peer: true,
    groups: ["relatives", "biao"],
    desc: "亲戚",
    side: "either",
    kind: "relative",
  }),
  rel("表妹", {
    unique: true,
    gender: "F",
    age: [-9, -1],
    peer: true,
    groups: ["relatives", "biao"],
    desc: "亲戚",
    side: "either",
    kind: "relative",
  }),
  rel("表弟", {
    unique: true,
    gender: "M",
    age: [-9, -1],
    peer: true,
    groups: ["relatives", "biao"],
    desc: "亲戚",
    side: "either",
    kind: "relative",
  }),
  rel("堂哥", {
    unique: true,
    gender: "M",
    age: [1, 8],
    peer: true,
    groups: ["relatives", "tang", "paternal"],
    desc: "亲戚",
    side: "father",
    kind: "relative",
  }),
  rel("堂姐", {
    unique: true,
    gender: "F",
    age: [1, 8],
    peer: true,
    groups: ["relatives", "tang", "paternal"],
    desc: "亲戚",
    side: "father",
    kind: "relative",
  }),
  rel("堂弟", {
    unique: true,
    gender: "M",
    age: [-8, -1],
    peer: true,
    groups: ["relatives", "tang", "paternal"],
    desc: "亲戚",
    side: "father",
    kind: "relative",
  }),
];
const BOSS = rel("领导", {
  unique: true,
  age: [36, 52],
  groups: [],
  kind: "boss",
  fixedJob: { jobs: ["部门总监", "项目总监", "技术总监"], emps: [] },
});
const COLLEAGUE = rel("同事", {
  unique: false,
  age: [23, 48],
  groups: ["colleagues"],
  desc: "同事",
  kind: "colleague",
});
const ROOMMATE = rel("大学室友", {
  unique: true,
  age: [-1, 1],
  peer: true,
  groups: ["classmates", "college"],
  desc: "同学",
  kind: "school",
});
const COLLEGE = rel("大学同学", {
  unique: false,
  age: [-1, 1],
  peer: true,
  groups: ["classmates", "college"],
  desc: "同学",
  kind: "school",
});
const HIGHSCHOOL = rel("高中同学", {
  unique: false,
  age: [-1, 1],
  peer: true,
  groups: ["classmates", "highschool"],
  desc: "同学",
  kind: "school",
});
const NEIGHBOUR = rel("邻居", {
  unique: false,
  age: [25, 74],
  groups: ["neighbours"],
  desc: "邻居",
  kind: "neighbour",
});
const FRIEND = rel("朋友", {
  unique: false,
  age: [-6, 6],
  peer: true,
  groups: ["friends"],
  desc: "朋友",
  kind: "friend",
});
const CLIENT = rel("客户", { unique: false, age: [28, 58], groups: ["clients"], desc: "客户", kind: "client" });
const SERVICES: RelDef[] = [
  rel("牙医", {
    my: "我的牙医",
    unique: true,
    age: [32, 58],
    groups: [],
    kind: "service",
    fixedJob: { jobs: ["牙医"], emps: ["美奥口腔", "市口腔医院", "佳美口腔"] },
  }),
  rel("家庭医生", {
    my: "我的家庭医生",
    unique: true,
    age: [35, 60],
    groups: [],
    kind: "service",
    fixedJob: { jobs: ["全科医生"], emps: ["社区卫生服务中心"] },
  }),
  rel("班主任", {
    unique: true,
    age: [26, 50],
    groups: [],
    kind: "service",
    fixedJob: { jobs: ["语文老师", "数学老师", "英语老师"], emps: ["育才小学", "实验小学"] },
  }),
  rel("健身教练", {
    my: "我的健身教练",
    unique: true,
    age: [22, 35],
    groups: [],
    kind: "service",
    fixedJob: { jobs: ["私人教练"], emps: ["乐刻健身", "威尔士健身"] },
  }),
  rel("房东", { unique: true, age: [40, 70], groups: [], kind: "service" }),
];

// ───────────────────────────── things, places, events

interface ItemDef {
  type: string;
  names: string[];
  m: string;
  brands: string[];
  price: [number, number];
  wheres?: string[];
}
const ITEM_DEFS: ItemDef[] = [
  {
    type: "笔记本电脑",
    names: ["笔记本电脑", "笔记本", "电脑"],
    m: "台",
    brands: ["联想", "苹果", "戴尔", "华为", "惠普"],
    price: [4000, 15000],
  },
  {
    type: "扫地机器人",
    names: ["扫地机器人", "扫地机"],
    m: "台",
    brands: ["石头", "科沃斯", "追觅"],
    price: [1500, 5000],
  },
  { type: "跑步机", names: ["跑步机"], m: "台", brands: ["舒华", "亿健", "麦瑞克"], price: [1500, 6000] },
  { type: "咖啡机", names: ["咖啡机"], m: "台", brands: ["德龙", "飞利浦", "雀巢"], price: [800, 6000] },
  {
    type: "电动车",
    names: ["电动车", "电瓶车"],
    m: "辆",
    brands: ["雅迪", "爱玛", "小牛", "九号"],
    price: [2500, 7000],
  },
  { type: "自行车", names: ["自行车", "公路车"], m: "辆", brands: ["捷安特", "美利达", "崔克"], price: [1000, 9000] },
  { type: "相机", names: ["相机", "微单"], m: "台", brands: ["索尼", "佳能", "富士", "尼康"], price: [4000, 18000] },
  { type: "降噪耳机", names: ["降噪耳机", "耳机"], m: "副", brands: ["索尼", "Bose", "森海塞尔"], price: [800, 3000] },
  { type: "平板", names: ["平板", "iPad"], m: "台", brands: ["苹果"], price: [2500, 8000] },
  {
    type: "空气净化器",
    names: ["空气净化器", "净化器"],
    m: "台",
    brands: ["飞利浦", "布鲁雅尔", "霍尼韦尔"],
    price: [700, 4000],
  },
  { type: "洗碗机", names: ["洗碗机"], m: "台", brands: ["西门子", "方太", "美的"], price: [2500, 8000] },
  {
    type: "沙发",
    names: ["沙发"],
    m: "张",
    brands: ["顾家", "芝华仕", "林氏木业"],
    price: [2000, 15000],
    wheres: ["宜家门店", "红星美凯龙", "京东", "天猫旗舰店"],
  },
  { type: "手表", names: ["手表"], m: "块", brands: ["天梭", "卡西欧", "浪琴", "西铁城"], price: [600, 20000] },
  { type: "行李箱", names: ["行李箱"], m: "个", brands: ["新秀丽", "日默瓦", "美旅"], price: [300, 6000] },
  { type: "吹风机", names: ["吹风机"], m: "个", brands: ["戴森", "松下", "飞科"], price: [200, 3500] },
  { type: "投影仪", names: ["投影仪"], m: "台", brands: ["极米", "坚果", "当贝"], price: [2000, 7000] },
  { type: "电饭煲", names: ["电饭煲"], m: "个", brands: ["象印", "苏泊尔", "虎牌"], price: [300, 2500] },
  { type: "冰箱", names: ["冰箱"], m: "台", brands: ["海尔", "容声", "卡萨帝"], price: [3000, 12000] },
  { type: "羽绒服", names: ["羽绒服"], m: "件", brands: ["波司登", "加拿大鹅", "优衣库"], price: [500, 8000] },
  {
    type: "跑鞋",
    names: ["跑鞋", "运动鞋"],
    m: "双",
    brands: ["耐克", "阿迪达斯", "李宁", "安踏"],
    price: [400, 1500],
  },
  { type: "显示器", names: ["显示器"], m: "台", brands: ["LG", "明基", "AOC"], price: [1000, 5000] },
  { type: "机械键盘", names: ["机械键盘", "键盘"], m: "把", brands: ["罗技", "樱桃", "阿米洛"], price: [300, 1500] },
  { type: "电视", names: ["电视"], m: "台", brands: ["索尼", "海信", "TCL"], price: [2000, 12000] },
];
const WHERES = [
  "京东",
  "淘宝",
  "拼多多",
  "天猫旗舰店",
  "品牌官网",
  "万达广场",
  "万象城",
  "商场专柜",
  "机场免税店",
  "小区门口的店",
  "抖音直播间",
  "闲鱼",
];
const COLOURS = ["黑色", "白色", "灰色", "银色", "深蓝色", "红色", "粉色", "墨绿色", "米色", "金色"];

interface PlaceDef {
  type: string;
  names: string[];
  specials: string[];
  open: [number, number];
  close: [number, number];
  neverClosed?: boolean;
}
const PLACE_DEFS: PlaceDef[] = [
  {
    type: "健身房",
    names: ["力美健健身房", "超级猩猩健身房"],
    specials: ["有恒温泳池", "器械特别新", "淋浴间很干净"],
    open: [6, 8],
    close: [22, 23],
  },
  {
    type: "面馆",
    names: ["老张面馆", "张记牛肉面"],
    specials: ["招牌是红烧牛肉面", "辣椒油是老板自己炒的", "面都是手工现拉的"],
    open: [6, 9],
    close: [14, 21],
  },
  {
    type: "咖啡店",
    names: ["转角咖啡", "漫咖啡", "楼下的瑞幸"],
    specials: ["可以带狗进去", "手冲特别好喝", "靠窗的位子适合办公"],
    open: [7, 9],
    close: [18, 22],
  },
  {
    type: "书店",
    names: ["西西弗书店", "猫的天空之城"],
    specials: ["二楼有自习区", "每周六有读书分享", "能寄明信片给未来的自己"],
    open: [9, 10],
    close: [21, 22],
  },
  {
    type: "超市",
    names: ["盒马鲜生", "永辉超市", "山姆会员店"],
    specials: ["海鲜特别新鲜", "熟食傍晚打折", "要办会员卡才能进"],
    open: [7, 9],
    close: [21, 23],
    neverClosed: true,
  },
  {
    type: "公园",
    names: ["湖滨公园", "植物园"],
    specials: ["有一条五公里的环湖步道", "春天樱花特别好看", "有一大片草坪可以野餐"],
    open: [5, 7],
    close: [21, 23],
    neverClosed: true,
  },
  {
    type: "电影院",
    names: ["星光影城", "CGV影城"],
    specials: ["有IMAX厅", "周二会员半价", "座椅可以放平躺着"],
    open: [9, 10],
    close: [23, 24],
  },
  {
    type: "理发店",
    names: ["Tony造型", "木子理发"],
    specials: ["只接受预约", "老板手艺特别好", "洗头会送肩颈按摩"],
    open: [9, 10],
    close: [20, 22],
  },
  {
    type: "宠物医院",
    names: ["瑞鹏宠物医院", "爱宠宠物医院"],
    specials: ["医生特别有耐心", "能顺便做洗护"],
    open: [8, 9],
    close: [20, 22],
  },
  {
    type: "菜市场",
    names: ["东门菜市场", "南街农贸市场"],
    specials: ["有家豆腐摊特别好吃", "海鲜摊可以帮忙加工"],
    open: [5, 6],
    close: [18, 19],
  },
  {
    type: "游泳馆",
    names: ["市游泳馆", "体育中心游泳馆"],
    specials: ["有五十米标准池", "水温常年二十八度"],
    open: [6, 8],
    close: [21, 22],
  },
  {
    type: "图书馆",
    names: ["市图书馆", "社区图书馆"],
    specials: ["有少儿阅读区", "可以免费借电子书"],
    open: [8, 9],
    close: [20, 21],
  },
  {
    type: "火锅店",
    names: ["小龙坎火锅", "蜀大侠火锅"],
    specials: ["服务特别热情", "毛肚特别新鲜"],
    open: [10, 11],
    close: [23, 24],
  },
  {
    type: "茶馆",
    names: ["听雨茶舍", "老舍茶馆"],
    specials: ["周末有评书表演", "老板娘会弹古筝"],
    open: [10, 11],
    close: [22, 23],
  },
  {
    type: "洗车店",
    names: ["途虎洗车", "车之家洗车"],
    specials: ["洗车送打蜡", "可以边等边喝茶"],
    open: [8, 9],
    close: [18, 20],
  },
  {
    type: "瑜伽馆",
    names: ["梵音瑜伽", "静心瑜伽馆"],
    specials: ["有空中瑜伽课", "老师都是印度回来的"],
    open: [8, 10],
    close: [21, 22],
  },
  {
    type: "面包店",
    names: ["街角面包坊", "巴黎贝甜"],
    specials: ["每天下午四点出炉可颂", "打烊前一小时半价"],
    open: [7, 8],
    close: [21, 22],
  },
];

type EventPool =
  "college" | "highschool" | "colleagues" | "relatives" | "friends" | "clients" | "neighbours" | "birthday";
interface EventDef {
  name: string;
  pool: EventPool;
  head: [number, number];
  perHead: [number, number];
  dur: "span" | "hours" | "days";
  date?: YMD;
  month?: [number, number];
  venues: string[];
}
const EVENT_DEFS: EventDef[] = [
  {
    name: "大学同学聚会",
    pool: "college",
    head: [15, 40],
    perHead: [150, 400],
    dur: "span",
    venues: ["香格里拉酒店", "老城区的一家私房菜", "湘菜馆费大厨", "滨江酒店"],
  },
  {
    name: "高中同学聚会",
    pool: "highschool",
    head: [12, 35],
    perHead: [120, 300],
    dur: "span",
    venues: ["湘菜馆费大厨", "粤菜馆点都德", "钱柜KTV", "一家日料店"],
  },
  {
    name: "公司年会",
    pool: "colleagues",
    head: [80, 300],
    perHead: [300, 800],
    dur: "span",
    month: [1, 1],
    venues: ["香格里拉酒店", "喜来登酒店宴会厅", "国际会展中心"],
  },
  {
    name: "部门团建",
    pool: "colleagues",
    head: [10, 30],
    perHead: [200, 600],
    dur: "hours",
    venues: ["农家乐", "城郊的一家民宿", "真人CS基地", "钱柜KTV"],
  },
  {
    name: "中秋家宴",
    pool: "relatives",
    head: [8, 20],
    perHead: [100, 250],
    dur: "hours",
    date: { y: 2024, m: 9, d: 17 },
    venues: ["老城区的一家私房菜", "湘菜馆费大厨", "粤菜馆点都德"],
  },
  {
    name: "春节家庭聚餐",
    pool: "relatives",
    head: [10, 24],
    perHead: [100, 250],
    dur: "hours",
    date: { y: 2024, m: 2, d: 10 },
    venues: ["老城区的一家私房菜", "滨江酒店", "粤菜馆点都德"],
  },
  {
    name: "周末露营",
    pool: "friends",
    head: [4, 10],
    perHead: [300, 700],
    dur: "days",
    month: [4, 10],
    venues: ["森林公园营地", "城郊的一家民宿", "千岛湖边的营地"],
  },
  {
    name: "读书会",
    pool: "friends",
    head: [8, 20],
    perHead: [30, 80],
    dur: "hours",
    venues: ["社区活动中心", "一家独立书店的二楼", "老城区的一家茶室"],
  },
  {
    name: "客户答谢会",
    pool: "clients",
    head: [30, 80],
    perHead: [200, 500],
    dur: "span",
    venues: ["香格里拉酒店", "喜来登酒店宴会厅", "滨江酒店"],
  },
  {
    name: "小区邻里节",
    pool: "neighbours",
    head: [40, 120],
    perHead: [20, 60],
    dur: "hours",
    venues: ["社区活动中心", "小区中心花园"],
  },
  {
    name: "公司篮球赛",
    pool: "colleagues",
    head: [20, 60],
    perHead: [20, 60],
    dur: "hours",
    venues: ["市体育中心", "大学城体育馆"],
  },
  {
    name: "桌游局",
    pool: "friends",
    head: [5, 10],
    perHead: [50, 120],
    dur: "hours",
    venues: ["一家桌游吧", "万象城楼上的桌游馆"],
  },
  {
    name: "江边烧烤",
    pool: "friends",
    head: [6, 14],
    perHead: [80, 200],
    dur: "span",
    month: [5, 10],
    venues: ["江边的烧烤大排档", "滨江公园的烧烤区"],
  },
];

// ───────────────────────────── the world of one user

type PAttr =
  | "age"
  | "birthday"
  | "city"
  | "hometown"
  | "work"
  | "hobby"
  | "food"
  | "pet"
  | "car"
  | "phone"
  | "spouse"
  | "kids"
  | "height";
const P_ATTRS: PAttr[] = [
  "age",
  "birthday",
  "city",
  "hometown",
  "work",
  "hobby",
  "food",
  "pet",
  "car",
  "phone",
  "spouse",
  "kids",
  "height",
];
type UAttr = "city" | "work" | "car" | "phone" | "kids";

interface Draft {
  text: string;
  id: string;
  kind: "fact" | "filler" | "link";
}
type RefKind = "name" | "rel" | "relName" | "pronoun" | "relPron" | "desc";
interface Ref {
  kind: RefKind;
  msg: Draft;
  ante?: Ref;
  descFact?: PFact;
}
interface PFact {
  p: Person;
  attr: PAttr;
  version: 0 | 1;
  msgs: Draft[];
  ref: Ref;
}

interface Person {
  idx: number;
  name: string;
  gender: Gender;
  rel: RelDef;
  birthYear: number;
  ageForm: "age" | "year";
  bday: { m: number; d: number };
  city: string;
  hometown: Town;
  work: Work;
  hobby: Hobby;
  food: string;
  pet: Pet | null;
  car: string | null;
  phone: string;
  spouse: string | null;
  spouseJob: string;
  kids: number;
  height: number;
  upd: { city?: string; work?: Work; car?: string; phone?: string; kids?: number };
  tell: Set<PAttr>;
  mode: "plain" | "relFirst" | "nameFirst";
  introKey: number;
  introduced: boolean;
  introEv: Draft[];
  facts: Map<PAttr, PFact[]>;
}

type IAttr = "brand" | "colour" | "price" | "where" | "when";
interface Item {
  def: ItemDef;
  brand: string;
  colour: string;
  price: number;
  where: string;
  date: YMD;
  fullDate: boolean;
  facts: Map<IAttr, Draft[]>;
}
type LAttr = "hours" | "closed" | "distance" | "special";
interface Place {
  name: string;
  type: string;
  open: HM;
  close: HM;
  closed: number | null;
  km: number;
  special: string;
  facts: Map<LAttr, Draft[]>;
}
type EAttr = "date" | "venue" | "attendees" | "headcount" | "cost" | "duration";
interface Ev {
  name: string;
  date: YMD;
  venue: string;
  attendees: Person[];
  headcount: number;
  cost: number;
  dur: { kind: "span"; start: HM; end: HM } | { kind: "hours"; h: number } | { kind: "days"; days: number };
  facts: Map<EAttr, Draft[]>;
}

type Shape = "one" | "split" | "chain";
type Task =
  | { t: "intro"; key: number; p: Person; extra: PAttr | null; split: boolean }
  | { t: "person"; key: number; p: Person; attrs: PAttr[]; version: 0 | 1; shape: Shape }
  | { t: "item"; key: number; it: Item; attrs: IAttr[]; first: boolean; split: boolean }
  | { t: "place"; key: number; pl: Place; attrs: LAttr[]; first: boolean }
  | { t: "event"; key: number; ev: Ev; attrs: EAttr[]; first: boolean; split: boolean };

type Cat = "simple" | "conditional" | "comparative" | "aggregative" | "post-processing" | "noisy";
const CATS: Cat[] = ["simple", "conditional", "comparative", "aggregative", "post-processing", "noisy"];
const SHARES: Record<Cat, number> = {
  simple: 0.26,
  conditional: 0.17,
  comparative: 0.14,
  aggregative: 0.14,
  "post-processing": 0.15,
  noisy: 0.14,
};
interface Cand {
  cat: Cat;
  text: string;
  ev: Draft[];
  key: string;
  /** Self-check: for each list, one of its words must be in the evidence. */
  need?: string[][];
}

type Subj = string;
interface PPhr {
  pred: string[];
  full: ((s: Subj) => string)[];
  split: [(s: Subj) => string, string][];
}
interface EPhr {
  pred: string[];
  full: ((x: string) => string)[];
}

const pron = (p: { gender: Gender }): string => (p.gender === "F" ? "她" : "他");

class LogBuilder {
  readonly people: Person[] = [];
  readonly items: Item[] = [];
  readonly places: Place[] = [];
  readonly events: Ev[] = [];
  readonly drafts: Draft[] = [];
  readonly usedNames = new Set<string>();
  readonly userAge: number;
  readonly userCity: string;
  readonly company: string;
  readonly fatherSurname: string;
  readonly motherSurname: string;
  readonly fatherHome: Town;
  readonly motherHome: Town;
  readonly kidWord: string;
  updates = 0;
  private readonly fillerSeen = new Set<string>();

  constructor(
    readonly rng: Rng,
    readonly circleSize: number,
    readonly tellProb: number,
  ) {
    this.userAge = rng.int(28, 40);
    this.userCity = rng.pick(CITIES);
    this.company = rng.pick(COMPANIES);
    this.fatherSurname = rng.weighted(SURNAMES);
    do this.motherSurname = rng.weighted(SURNAMES);
    while (this.motherSurname === this.fatherSurname);
    this.fatherHome = rng.pick(TOWNS);
    this.motherHome = rng.pick(TOWNS);
    this.kidWord = rng.pick(["儿子", "女儿"]);
  }

  // ─────────── people

  private newName(gender: Gender, surname: string): string {
    for (let tries = 0; ; tries++) {
      const pool = gender === "M" ? MALE_CHARS : FEMALE_CHARS;
      const given = this.rng.chance(0.6) ? this.rng.pick(pool) + this.rng.pick(pool) : this.rng.pick(pool);
      if (given.length === 2 && given.charAt(0) === given.charAt(1) && this.rng.chance(0.7)) continue;
      const name = surname + given;
      if (!this.usedNames.has(name) || tries > 50) {
        this.usedNames.add(name);
        return name;
      }
      if (tries > 20) surname = this.rng.weighted(SURNAMES);
    }
  }

  private makePerson(def: RelDef): Person {
    const rng = this.rng;
    const gender: Gender = def.gender ?? (rng.chance(0.5) ? "M" : "F");
    let surname: string;
    if (def.side === "father") surname = this.fatherSurname;
    else if (def.side === "mother") surname = this.motherSurname;
    else if (def.side === "either") surname = rng.chance(0.4) ? this.motherSurname : rng.weighted(SURNAMES);
    else surname = rng.weighted(SURNAMES);
    const name = this.newName(gender, surname);
    const age = def.peer ? this.userAge + rng.int(def.age[0], def.age[1]) : rng.int(def.age[0], def.age[1]);
    const bm = rng.int(1, 12);
    const bday = { m: bm, d: rng.int(1, daysIn(bm)) };
    const local =
      def.kind === "colleague" || def.kind === "boss" || def.kind === "service" || def.kind === "neighbour"
        ? 0.9
        : def.kind === "client"
          ? 0.7
          : 0.3;
    const city = rng.chance(local) ? this.userCity : rng.pick(CITIES);
    let hometown = rng.pick(TOWNS);
    if (def.side === "father" && rng.chance(0.7)) hometown = this.fatherHome;
    if (def.side === "mother" && rng.chance(0.7)) hometown = this.motherHome;
    let work: Work;
    if (def.kind === "colleague") work = { job: rng.pick(COLLEAGUE_JOBS), emp: this.company };
    else if (def.fixedJob) {
      const emps = def.fixedJob.emps.length ? def.fixedJob.emps : [this.company];
      work = { job: rng.pick(def.fixedJob.jobs), emp: rng.pick(emps) };
    } else {
      const j = rng.pick(JOBS);
      work = { job: j.job, emp: rng.pick(j.emps) };
    }
    const marriedP = age < 25 ? 0.1 : age < 30 ? 0.5 : 0.82;
    const married = rng.chance(marriedP);
    const spouse = married ? this.newName(gender === "F" ? "M" : "F", rng.weighted(SURNAMES)) : null;
    const kids = married
      ? age < 28
        ? rng.weighted([
            [0, 6],
            [1, 3],
          ] as const)
        : rng.weighted([
            [0, 2],
            [1, 4],
            [2, 3],
            [3, 1],
          ] as const)
      : 0;
    const petKind = rng.chance(0.55) ? rng.pick(PET_KINDS) : null;
    const pet = petKind ? { ...petKind, name: rng.pick(PET_NAMES) } : null;
    const car = age >= 23 && rng.chance(0.68) ? rng.pick(CARS) : null;
    const h =
      gender === "M"
        ? 173 + (rng.next() + rng.next() + rng.next() - 1.5) * 9
        : 161 + (rng.next() + rng.next() + rng.next() - 1.5) * 7;
    const person: Person = {
      idx: this.people.length,
      name,
      gender,
      rel: def,
      birthYear: YEAR - age,
      ageForm: rng.chance(0.6) ? "age" : "year",
      bday,
      city,
      hometown,
      work,
      hobby: rng.pick(HOBBIES),
      food: rng.pick(FOODS),
      pet,
      car,
      phone: rng.pick(PHONES),
      spouse,
      spouseJob: rng.pick(SPOUSE_JOBS),
      kids,
      height: Math.round(Math.min(Math.max(h, 150), 192)),
      upd: {},
      tell: new Set<PAttr>(),
      mode: "plain",
      introKey: 0,
      introduced: false,
      introEv: [],
      facts: new Map(),
    };
    // what the user will tell
    const prob = def.kind === "service" ? this.tellProb * 0.65 : this.tellProb;
    for (const a of P_ATTRS) {
      if ((a === "spouse" || a === "kids") && !married) continue;
      if (rng.chance(prob)) person.tell.add(a);
    }
    for (const a of rng.shuffle(P_ATTRS)) {
      if (person.tell.size >= 5) break;
      if ((a === "spouse" || a === "kids") && !married) continue;
      person.tell.add(a);
    }
    if (def.unique)
      person.mode = rng.weighted([
        ["plain", 6],
        ["relFirst", 3],
        ["nameFirst", 1],
      ] as const);
    else person.mode = rng.chance(0.2) ? "nameFirst" : "plain";
    this.people.push(person);
    return person;
  }

  buildCircle(): void {
    const rng = this.rng;
    const defs: RelDef[] = [];
    defs.push(...rng.sample(RELATIVES, rng.int(6, 10)));
    defs.push(BOSS);
    const push = (d: RelDef, n: number) => {
      for (let i = 0; i < n; i++) defs.push(d);
    };
    push(COLLEAGUE, rng.int(3, 5));
    if (rng.chance(0.6)) defs.push(ROOMMATE);
    push(COLLEGE, rng.int(2, 3));
    push(HIGHSCHOOL, rng.int(1, 2));
    push(NEIGHBOUR, rng.int(2, 3));
    push(FRIEND, rng.int(3, 4));
    push(CLIENT, rng.int(1, 2));
    const kid = this.kidWord;
    const services = rng
      .sample(SERVICES, rng.int(2, 4))
      .map((s) => (s.label === "班主任" ? { ...s, my: `我${kid}的班主任` } : s));
    defs.push(...services);
    const extra = [COLLEAGUE, FRIEND, COLLEGE, HIGHSCHOOL, NEIGHBOUR, CLIENT, FRIEND, COLLEAGUE];
    while (defs.length < this.circleSize) defs.push(rng.pick(extra));
    const removable = (d: RelDef) => !d.unique && defs.filter((x) => x === d).length > 2;
    while (defs.length > this.circleSize) {
      const i = defs.findIndex(removable);
      if (i < 0) break;
      defs.splice(i, 1);
    }
    for (const d of rng.shuffle(defs)) this.makePerson(d);
  }

  // ─────────── things, places, events

  buildThings(): void {
    const rng = this.rng;
    for (const def of rng.sample(ITEM_DEFS, rng.int(10, 20))) {
      const y = rng.weighted([
        [2024, 45],
        [2023, 30],
        [2022, 15],
        [2021, 10],
      ] as const);
      const m = y === YEAR ? rng.int(1, 11) : rng.int(1, 12);
      const raw = rng.int(def.price[0], def.price[1]);
      const price = rng.chance(0.4) ? Math.max(99, Math.round(raw / 100) * 100 - 1) : Math.round(raw / 100) * 100;
      this.items.push({
        def,
        brand: rng.pick(def.brands),
        colour: rng.pick(COLOURS),
        price,
        where: rng.pick(def.wheres ?? WHERES),
        date: { y, m, d: rng.int(1, daysIn(m)) },
        fullDate: rng.chance(0.7),
        facts: new Map(),
      });
    }
    for (const def of rng.sample(PLACE_DEFS, rng.int(8, 15))) {
      const half = () => (rng.chance(0.25) ? 30 : 0);
      const closeH = rng.int(def.close[0], def.close[1]);
      this.places.push({
        name: rng.pick(def.names),
        type: def.type,
        open: { h: rng.int(def.open[0], def.open[1]), min: half() },
        close: { h: closeH, min: closeH >= 24 ? 0 : half() },
        closed: def.neverClosed || rng.chance(0.5) ? null : rng.int(1, 7),
        km: rng.chance(0.3) ? (rng.int(3, 19) * 50) / 1000 : Math.round(rng.real(1, 12) * 10) / 10,
        special: rng.pick(def.specials),
        facts: new Map(),
      });
    }
    const poolOf = (pool: EventPool): Person[] => {
      const ok = (p: Person) => p.mode !== "relFirst";
      const by = (g: GroupKey) => this.people.filter((p) => ok(p) && p.rel.groups.includes(g));
      switch (pool) {
        case "birthday":
          return this.people.filter((p) => ok(p) && (p.rel.kind === "friend" || p.rel.kind === "school"));
        default:
          return by(pool);
      }
    };
    const usedVenues = new Set<string>();
    const defs = rng.shuffle(EVENT_DEFS).filter((d) => poolOf(d.pool).length >= 2);
    const birthdayHosts = rng.sample(poolOf("birthday"), rng.int(1, 3));
    const wanted = rng.int(8, 15);
    const plans: { def: EventDef; host?: Person }[] = birthdayHosts.map((host) => ({
      def: {
        name: `${host.name}的生日聚会`,
        pool: "birthday",
        head: [6, 15],
        perHead: [120, 300],
        dur: "hours",
        venues: ["钱柜KTV", "一家日料店", "湘菜馆费大厨", "一家西餐厅"],
      },
      host,
    }));
    for (const def of defs) if (plans.length < wanted) plans.push({ def });
    for (const { def, host } of plans) {
      let date: YMD;
      if (host) date = { y: YEAR, m: host.bday.m, d: host.bday.d };
      else if (def.date) date = def.date;
      else {
        const m = def.month ? rng.int(def.month[0], def.month[1]) : rng.int(1, 12);
        date = { y: YEAR, m, d: rng.int(1, daysIn(m)) };
      }
      const pool = poolOf(def.pool).filter((p) => p !== host);
      const attendees = rng.sample(pool, Math.min(pool.length, rng.int(2, 4)));
      const headcount = Math.max(rng.int(def.head[0], def.head[1]), attendees.length + 2);
      const cost = Math.round((headcount * rng.int(def.perHead[0], def.perHead[1])) / 10) * 10;
      let dur: Ev["dur"];
      if (def.dur === "span") {
        const sh = rng.int(10, 18);
        dur = {
          kind: "span",
          start: { h: sh, min: rng.chance(0.3) ? 30 : 0 },
          end: { h: Math.min(sh + rng.int(2, 6), 23), min: 0 },
        };
      } else if (def.dur === "hours") dur = { kind: "hours", h: rng.int(2, 5) };
      else dur = { kind: "days", days: rng.int(2, 3) };
      const fresh = def.venues.filter((v) => !usedVenues.has(v));
      const venue = rng.pick(fresh.length ? fresh : def.venues);
      usedVenues.add(venue);
      this.events.push({ name: def.name, date, venue, attendees, headcount, cost, dur, facts: new Map() });
    }
  }

  // ─────────── current values

  cityOf = (p: Person): string => p.upd.city ?? p.city;
  workOf = (p: Person): Work => p.upd.work ?? p.work;
  carOf = (p: Person): string | null => (p.upd.car !== undefined ? p.upd.car : p.car);
  phoneOf = (p: Person): string => p.upd.phone ?? p.phone;
  kidsOf = (p: Person): number => p.upd.kids ?? p.kids;

  // ─────────── planning: which message tells what, in which order

  plan(): Task[] {
    const rng = this.rng;
    const tasks: Task[] = [];
    // the changes, chosen before the ordering so that they come after what they change
    const updatable: [Person, UAttr][] = [];
    for (const p of this.people) {
      const k = p.rel.kind;
      if (p.tell.has("city") && k !== "neighbour" && k !== "service" && k !== "colleague" && k !== "boss")
        updatable.push([p, "city"]);
      if (p.tell.has("work") && k !== "colleague" && k !== "boss" && k !== "service") updatable.push([p, "work"]);
      if (p.tell.has("car")) updatable.push([p, "car"]);
      if (p.tell.has("phone")) updatable.push([p, "phone"]);
      if (p.tell.has("kids") && p.kids < 3 && p.spouse) updatable.push([p, "kids"]);
    }
    const changes = new Map<Person, UAttr[]>();
    for (const [p, a] of rng.sample(updatable, rng.int(6, 10))) {
      const list = changes.get(p) ?? [];
      if (list.length >= 2) continue;
      list.push(a);
      changes.set(p, list);
      if (a === "city") p.upd.city = rng.pick(CITIES.filter((c) => c !== p.city));
      if (a === "work") {
        const j = JOBS.find((x) => x.job === p.work.job);
        const emps = (j?.emps ?? []).filter((e) => e !== p.work.emp);
        const other = rng.pick(JOBS.filter((x) => x.job !== p.work.job));
        p.upd.work =
          emps.length && rng.chance(0.7)
            ? { job: p.work.job, emp: rng.pick(emps) }
            : { job: other.job, emp: rng.pick(other.emps) };
      }
      if (a === "car") p.upd.car = rng.pick(CARS.filter((c) => c !== p.car));
      if (a === "phone") p.upd.phone = rng.pick(PHONES.filter((c) => c !== p.phone));
      if (a === "kids") p.upd.kids = p.kids + 1;
      this.updates++;
    }

    for (const p of this.people) {
      const start = rng.real(0, 0.7);
      const end = Math.min(1, start + rng.real(0.25, 0.75));
      p.introKey = p.mode === "plain" ? start : start + (end - start) * rng.real(0.3, 0.7);
      const attrs = rng.shuffle([...p.tell]);
      let extra: PAttr | null = null;
      if (rng.chance(0.25) && attrs.length > 0 && p.mode === "plain") extra = attrs.pop() ?? null;
      tasks.push({ t: "intro", key: p.introKey, p, extra, split: rng.chance(0.22) });
      const keys = new Map<PAttr, number>();
      while (attrs.length) {
        const key = p.mode === "plain" ? rng.real(start + 0.001, end) : rng.real(start, end);
        const r = rng.next();
        let group: PAttr[];
        let shape: Shape = "one";
        if (r < 0.2 && attrs.length >= 2) {
          group = attrs.splice(0, Math.min(attrs.length, rng.int(2, 3)));
          shape = rng.chance(0.35) ? "chain" : "one";
        } else {
          group = attrs.splice(0, 1);
          if (rng.chance(0.16)) shape = "split";
        }
        for (const a of group) keys.set(a, key);
        tasks.push({ t: "person", key, p, attrs: group, version: 0, shape });
      }
      for (const a of changes.get(p) ?? []) {
        const after = keys.get(a) ?? p.introKey;
        const key =
          after < 0.9 ? rng.real(after + 0.05, Math.min(1, after + 0.45)) : after + (1 - after) * rng.real(0.3, 0.9);
        tasks.push({ t: "person", key, p, attrs: [a], version: 1, shape: rng.chance(0.25) ? "split" : "one" });
      }
    }

    for (const it of this.items) {
      const base = it.date.y === YEAR ? Math.min(0.98, dayOfYear(it.date) / 366 + rng.real(0, 0.03)) : rng.real(0, 0.8);
      const rest = rng.shuffle<IAttr>(["colour", "price", "where", "when"].filter(() => rng.chance(0.9)) as IAttr[]);
      const firstAttrs: IAttr[] = ["brand", ...rest.splice(0, rng.int(0, Math.min(3, rest.length)))];
      tasks.push({ t: "item", key: base, it, attrs: firstAttrs, first: true, split: rng.chance(0.2) });
      while (rest.length) {
        const group = rest.splice(0, rng.chance(0.3) ? 2 : 1);
        tasks.push({
          t: "item",
          key: Math.min(0.999, base + rng.real(0.01, 0.3)),
          it,
          attrs: group,
          first: false,
          split: false,
        });
      }
    }
    for (const pl of this.places) {
      const base = rng.real(0, 0.8);
      const rest = rng.shuffle<LAttr>(["hours", "closed", "distance", "special"]);
      const firstAttrs = rest.splice(0, rng.int(1, 2));
      tasks.push({ t: "place", key: base, pl, attrs: firstAttrs, first: true });
      while (rest.length) {
        const group = rest.splice(0, rng.chance(0.3) ? 2 : 1);
        tasks.push({ t: "place", key: Math.min(0.999, base + rng.real(0.01, 0.35)), pl, attrs: group, first: false });
      }
    }
    for (const ev of this.events) {
      const at = dayOfYear(ev.date) / 366;
      const base = Math.max(0, at - rng.real(0, 0.05));
      const rest = rng.shuffle<EAttr>(["venue", "attendees", "headcount", "cost", "duration"]);
      const firstAttrs: EAttr[] = ["date", ...rest.splice(0, rng.int(0, 2))];
      tasks.push({ t: "event", key: base, ev, attrs: firstAttrs, first: true, split: rng.chance(0.25) });
      while (rest.length) {
        const group = rest.splice(0, rng.chance(0.35) ? 2 : 1);
        tasks.push({
          t: "event",
          key: Math.min(0.999, at + rng.real(0, 0.06)),
          ev,
          attrs: group,
          first: false,
          split: false,
        });
      }
    }
    return tasks.sort((a, b) => a.key - b.key);
  }

  // ─────────── wording helpers

  private num(n: number): string {
    return this.rng.chance(0.55) ? String(n) : cn(n);
  }
  private price(n: number): string {
    const short = cnPriceShort(n);
    const forms = [`${n}元`, `${n}块`, `${n}块钱`];
    if (short) forms.push(short, short);
    if (n < 10000) forms.push(`${cn(n)}块`);
    if (n >= 10000 && n % 10000 === 0) forms.push(`${n / 10000}万`);
    return this.rng.pick(forms);
  }
  private md(m: number, d: number): string {
    return this.rng.pick([`${m}月${d}号`, `${m}月${d}日`, `${cn(m)}月${cn(d)}号`, `${cn(m)}月${cn(d)}日`]);
  }
  private ymd(date: YMD, full: boolean): string {
    const rng = this.rng;
    const yw =
      date.y === YEAR
        ? rng.pick(["今年", `${YEAR}年`])
        : date.y === YEAR - 1
          ? rng.pick(["去年", `${date.y}年`, `${date.y % 100}年`])
          : date.y === YEAR - 2
            ? rng.pick(["前年", `${date.y}年`])
            : `${date.y}年`;
    if (!full) return rng.pick([`${yw}${date.m}月`, `${yw}${cn(date.m)}月份`, `${yw}${date.m}月份`]);
    return rng.weighted([
      [`${yw}${this.md(date.m, date.d)}`, 5],
      [`${date.y}.${date.m}.${date.d}`, 1],
      [`${date.y}-${String(date.m).padStart(2, "0")}-${String(date.d).padStart(2, "0")}`, 1],
    ] as const);
  }
  private eventDate(date: YMD): string {
    return this.rng.weighted([
      [this.md(date.m, date.d), 4],
      [`今年${this.md(date.m, date.d)}`, 2],
      [`${date.y}年${date.m}月${date.d}日`, 1],
      [`${date.m}/${date.d}`, 1],
    ] as const);
  }
  private time(t: HM): string {
    const rng = this.rng;
    const mm = t.min === 30 ? "半" : "";
    const digits = `${t.h}:${String(t.min).padStart(2, "0")}`;
    if (t.h >= 24) return rng.pick(["晚上十二点", "半夜12点", "24:00", "夜里十二点"]);
    if (t.h < 12) return rng.pick([`早上${t.h}点${mm}`, `上午${cn(t.h)}点${mm}`, digits, `早上${cn(t.h)}点${mm}`]);
    if (t.h === 12) return rng.pick([`中午十二点${mm}`, digits]);
    const h12 = t.h - 12;
    const part = t.h < 18 ? "下午" : "晚上";
    return rng.pick([`${part}${h12}点${mm}`, `${part}${cn(h12)}点${mm}`, digits]);
  }
  private distance(km: number): string {
    if (km < 1) {
      const m = Math.round(km * 1000);
      return this.rng.pick([`${m}米`, `${cn(m)}米`]);
    }
    const whole = Number.isInteger(km);
    const cnKm = whole ? cn(km) : `${cn(Math.floor(km))}点${digit(Math.round((km % 1) * 10))}`;
    return this.rng.pick([`${km}公里`, `${km}km`, `${cnKm}公里`]);
  }
  private weekday(d: number): string {
    const w = WEEK[d - 1] ?? "一";
    return this.rng.pick([
      `周${w}`,
      `星期${w === "日" ? this.rng.pick(["日", "天"]) : w}`,
      `礼拜${w === "日" ? "天" : w}`,
    ]);
  }
  private height(cm: number): string {
    const dec = cm - 100;
    const spoken = `一米${digit(Math.floor(dec / 10))}${dec % 10 ? digit(dec % 10) : ""}`;
    return this.rng.pick([spoken, spoken, `${cm}厘米`, `${cm / 100}米`, `${cm}cm`]);
  }
  private deco(text: string): string {
    const leads = /^(记一下|数了一下|算了一下|算了下|对了|忘了|补充一下|跟你说|顺便)/.test(text);
    const pre = leads
      ? ""
      : this.rng.weighted([
          ["", 10],
          ["对了，", 2],
          ["跟你说一下，", 1],
          ["记一下，", 1],
          ["顺便说下，", 1],
          ["突然想起来，", 1],
          ["哦对，", 1],
        ] as const);
    const post = text.includes("记")
      ? ""
      : this.rng.weighted([
          ["", 12],
          ["帮我记一下。", 1],
          ["挺意外的。", 1],
          ["哈哈。", 1],
          ["你记着点。", 1],
        ] as const);
    return pre + text + post;
  }
  private names(list: Person[]): string {
    const n = list.map((p) => p.name);
    if (n.length <= 1) return n.join("");
    return `${n.slice(0, -1).join("、")}和${n[n.length - 1] ?? ""}`;
  }

  // ─────────── how a fact about a person is said

  personPhrases(p: Person, attr: PAttr, version: 0 | 1): PPhr {
    const rng = this.rng;
    const pr = pron(p);
    const out: PPhr = { pred: [], full: [], split: [] };
    switch (attr) {
      case "age": {
        const by = p.birthYear;
        const age = YEAR - by;
        const A = () => this.num(age);
        if (p.ageForm === "age") {
          out.pred.push(
            `今年${A()}岁`,
            `${A()}岁了`,
            `刚满${A()}周岁`,
            `都${A()}了，看着还挺年轻`,
            `今年${A()}，属${zodiac(by)}`,
          );
          out.full.push(
            (s) => `${s}的年龄是${A()}岁`,
            (s) => `问了${s}的年纪，${A()}岁`,
          );
          out.split.push(
            [(s) => `今天才知道${s}的真实年龄。`, `${A()}岁，完全看不出来。`],
            [(s) => `${s}让我猜${pr}多大。`, `原来都${A()}岁了。`],
          );
        } else {
          const Y = () => rng.pick([`${by}`, `${by}`, [...String(by)].map((c) => digit(Number(c))).join("")]);
          out.pred.push(
            `是${Y()}年出生的`,
            `${Y()}年生人`,
            `出生于${Y()}年`,
            `属${zodiac(by)}，${by}年的`,
            `身份证上是${by}年`,
            `${String(by).slice(2)}年的`,
          );
          out.full.push((s) => `${s}的出生年份是${Y()}年`);
          out.split.push([(s) => `看了一眼${s}的身份证。`, `${Y()}年出生的，比我想的大。`]);
        }
        break;
      }
      case "birthday": {
        const { m, d } = p.bday;
        const md = () => this.md(m, d);
        out.pred.push(`生日是${md()}`, `${md()}过生日`, `是${md()}出生的`, `每年${md()}过生日`);
        out.full.push(
          (s) => `${s}的生日在${md()}`,
          (s) => `每年${md()}都要给${s}过生日`,
          (s) => `${m}.${d}是${s}的生日`,
        );
        out.split.push(
          [(s) => `差点忘了${s}的生日。`, `是${md()}，到时候提醒我买礼物。`],
          [(s) => `问到${s}的生日了。`, `${md()}，记下来。`],
        );
        break;
      }
      case "city": {
        if (version === 0) {
          const c = p.city;
          out.pred.push(
            `住在${c}`,
            `在${c}安了家`,
            `一家人定居在${c}`,
            `现在人在${c}`,
            `在${c}买了房，常住那边`,
            `这些年一直在${c}生活`,
          );
          out.full.push(
            (s) => `${s}的家在${c}`,
            (s) => `${c}是${s}现在常住的地方`,
          );
          out.split.push(
            [(s) => `${s}最近在看房子。`, `一直住在${c}，打算就在那边买。`],
            [(s) => `问了下${s}现在住哪。`, `说在${c}，离市中心不远。`],
          );
        } else {
          const c = p.upd.city ?? p.city;
          const o = p.city;
          out.pred.push(
            `已经搬到${c}了`,
            `搬去${c}了`,
            `全家迁到${c}去了`,
            `现在改住${c}了`,
            `离开${o}，去${c}定居了`,
            `从${o}搬到了${c}`,
          );
          out.full.push((s) => `${s}现在住${c}了，不在${o}了`);
          out.split.push(
            [(s) => `${s}搬家了。`, `新家在${c}。`],
            [(s) => `${s}不在${o}住了。`, `搬到${c}去了，说那边机会多。`],
          );
        }
        break;
      }
      case "hometown": {
        const h = p.hometown;
        out.pred.push(
          `老家是${h.c}的`,
          `是${h.prov}${h.c}人`,
          `在${h.c}长大`,
          `出生在${h.prov}${h.c}`,
          `每年过年都回${h.c}`,
          `是从${h.c}出来的`,
        );
        out.full.push(
          (s) => `${s}的祖籍是${h.prov}${h.c}`,
          (s) => `${h.c}是${s}的老家`,
        );
        out.split.push(
          [(s) => `${s}给我寄了点土特产。`, `从${h.c}老家寄来的，挺好吃。`],
          [(s) => `${s}说话有点口音。`, `${pr}是${h.prov}${h.c}那边长大的。`],
        );
        break;
      }
      case "work": {
        const w = version === 0 ? p.work : (p.upd.work ?? p.work);
        const e = w.emp === this.company && rng.chance(0.3) ? `我们公司（${this.company}）` : w.emp;
        const j = w.job;
        if (version === 0) {
          out.pred.push(
            `在${e}当${j}`,
            `是${e}的${j}`,
            `在${e}上班，做${j}`,
            `干${j}这行，单位是${e}`,
            `在${e}工作，是一名${j}`,
            `在${e}做${j}好多年了`,
          );
          out.full.push((s) => `${s}的工作是${j}，在${e}`);
          out.split.push(
            [(s) => `${s}最近工作挺忙的。`, `在${e}做${j}，天天加班。`],
            [(s) => `${s}又升职了。`, `在${e}做${j}，现在是组里的骨干。`],
          );
        } else {
          const o = p.work;
          const same = o.job === j;
          out.pred.push(
            same ? `跳槽去了${e}，还是做${j}` : `换了行，去${e}当${j}了`,
            `换工作了，现在在${e}当${j}`,
            `辞职去了${e}，做${j}`,
            `被挖到${e}去了，职位是${j}`,
            `离开了${o.emp}，去${e}做${j}了`,
          );
          out.full.push((s) => `${s}现在在${e}上班了，做${j}`);
          out.split.push(
            [(s) => `${s}换工作了。`, `现在在${e}当${j}。`],
            [(s) => `${s}从${o.emp}离职了。`, `新单位是${e}，做${j}。`],
          );
        }
        break;
      }
      case "hobby": {
        const h = p.hobby;
        out.pred.push(
          `周末总${h.v}`,
          `爱好是${h.n}`,
          `最近迷上了${h.n}`,
          `一有空就${h.v}`,
          `${h.n}${rng.pick(["十来年", "好多年", "好几年"])}了`,
          `每个礼拜都要${h.v}，雷打不动`,
          `平时没别的爱好，就喜欢${h.n}`,
          `下班以后常常${h.v}`,
        );
        out.full.push((s) => `${s}的业余生活基本就是${h.n}`);
        out.split.push([(s) => `${s}周末又不见人影。`, `肯定又在${h.n}。`]);
        break;
      }
      case "food": {
        const f = p.food;
        out.pred.push(
          `最爱吃${f}`,
          `每次聚餐都要点${f}`,
          `对${f}毫无抵抗力`,
          `三天不吃${f}就难受`,
          `说这辈子最离不开的就是${f}`,
          `一到周末就拉人去吃${f}`,
        );
        out.full.push(
          (s) => `${s}最喜欢的菜是${f}`,
          (s) => `跟${s}吃饭，点${f}准没错`,
        );
        out.split.push([(s) => `下次请${s}吃饭。`, `记得订${f}，${pr}最好这口。`]);
        break;
      }
      case "pet": {
        const pet = p.pet;
        if (pet) {
          const { kind: k, species: sp, measure: m, name: n } = pet;
          out.pred.push(
            `养了一${m}${k}，叫${n}`,
            `家里有${m}${k}，名字叫${n}`,
            `新领养了一${m}${k}，取名${n}`,
            `天天在朋友圈晒${pr}家的${k}${n}`,
            `家里的${k}叫${n}，宝贝得不得了`,
          );
          if (sp === "狗") out.pred.push(`每天早晚都要遛${pr}家的${k}${n}`);
          out.full.push(
            (s) => (sp === k ? `${s}家养了${m}${k}，叫${n}` : `${s}家的${sp}叫${n}，是${m}${k}`),
            (s) => `${s}那${m}叫${n}的${k}又胖了`,
          );
          out.split.push([(s) => `${s}出差了，让我帮忙照看几天宠物。`, `是${m}${k}，叫${n}，挺乖的。`]);
        } else {
          out.pred.push(
            `不养宠物，嫌麻烦`,
            `对猫毛狗毛都过敏，家里什么都没养`,
            `家里没有宠物`,
            `说养宠物太费心，一直没养`,
            `从来不养小动物`,
            `家里连条金鱼都没有`,
          );
          out.full.push((s) => `${s}家没养任何宠物`);
        }
        break;
      }
      case "car": {
        if (version === 0) {
          const b = p.car;
          if (b) {
            out.pred.push(
              `开一辆${b}`,
              `开的是${b}`,
              `前几年买了辆${b}`,
              `每天开着${b}上下班`,
              `买了台${b}，说是空间大`,
            );
            out.full.push(
              (s) => `${s}的车是${b}的`,
              (s) => `${s}那辆${b}开了好几年了`,
            );
            out.split.push([(s) => `${s}开车送我回的家。`, `${b}的车，坐着挺舒服。`]);
          } else {
            out.pred.push(
              `没买车，上下班坐地铁`,
              `不会开车，也没车`,
              `一直没买车`,
              `家里没车，出门都打车`,
              `没有车，平时骑电动车`,
            );
            out.full.push((s) => `${s}至今没有车`);
          }
        } else {
          const b = p.upd.car ?? "";
          const o = p.car;
          out.pred.push(
            `刚提了辆${b}`,
            `新买了辆${b}`,
            o ? `把${o}卖了，换了辆${b}` : `终于买车了，是辆${b}`,
            o ? `换车了，新车是${b}` : `买车了，是${b}`,
          );
          out.full.push((s) => `${s}现在开${b}了`);
          out.split.push([(s) => (o ? `${s}换车了。` : `${s}买车了。`), `这次是${b}，还挺帅。`]);
        }
        break;
      }
      case "phone": {
        const b = version === 0 ? p.phone : (p.upd.phone ?? p.phone);
        const bt = () => (b === "苹果" ? rng.pick(["苹果", "iPhone"]) : b);
        if (version === 0) {
          out.pred.push(
            `用的是${bt()}手机`,
            `手机一直用${b}的`,
            `拿个${bt()}`,
            `只认${b}，别的手机都不用`,
            `对${b}手机情有独钟`,
          );
          if (b === "苹果") out.pred.push("是个铁杆果粉");
          out.full.push((s) => `${s}的手机是${b}的`);
          out.split.push([(s) => `${s}手机又摔了。`, `那台${bt()}屏幕碎了一角。`]);
        } else {
          out.pred.push(`手机换成${b}的了`, `换了部${bt()}`, `把旧手机换掉了，新的是${b}`, `改用${b}手机了`);
          out.full.push((s) => `${s}最近改用${bt()}了`);
          out.split.push([(s) => `${s}换手机了。`, `新的是${bt()}，拍照挺好。`]);
        }
        break;
      }
      case "spouse": {
        const sp = p.spouse ?? "";
        if (p.gender === "F") {
          out.pred.push(`嫁给了${sp}`, `和${sp}结婚了`, `跟${sp}领证好几年了`, `和${sp}是大学时候谈的，后来结了婚`);
          out.full.push(
            (s) => `${s}老公叫${sp}`,
            (s) => `${s}的爱人是${sp}`,
            (s) => `${s}先生叫${sp}`,
          );
          out.split.push(
            [(s) => `${s}结婚了。`, `对方叫${sp}，是个${p.spouseJob}。`],
            [(s) => `${s}前几年办的婚礼。`, `新郎叫${sp}，人挺实在。`],
          );
        } else {
          out.pred.push(`娶了${sp}`, `和${sp}结婚了`, `跟${sp}领证好几年了`, `和${sp}是相亲认识的，后来结了婚`);
          out.full.push(
            (s) => `${s}老婆叫${sp}`,
            (s) => `${s}的爱人是${sp}`,
            (s) => `${s}太太叫${sp}`,
          );
          out.split.push(
            [(s) => `${s}结婚了。`, `对方叫${sp}，是个${p.spouseJob}。`],
            [(s) => `${s}前几年办的婚礼。`, `新娘叫${sp}，特别温柔。`],
          );
        }
        break;
      }
      case "kids": {
        const parent = p.gender === "F" ? "妈妈" : "爸爸";
        if (version === 0) {
          const n = p.kids;
          const N = () => (rng.chance(0.6) ? cnCount(n) : String(n));
          if (n === 0) {
            out.pred.push(`还没要孩子`, `两口子打算丁克`, `暂时没小孩`, `家里还没有小朋友`);
            out.full.push((s) => `${s}家目前没有孩子`);
          } else {
            out.pred.push(
              `有${N()}个孩子`,
              `家里${N()}个娃`,
              `是${N()}个孩子的${parent}`,
              `家里${N()}个小孩，每天鸡飞狗跳`,
            );
            if (n === 1)
              out.pred.push(`就一个${rng.pick(["儿子", "女儿"])}`, `生了个${rng.pick(["儿子", "女儿"])}，独生的`);
            if (n === 2) out.pred.push(`一儿一女`, `两个都是${rng.pick(["儿子", "女儿"])}`);
            out.full.push((s) => `${s}家有${N()}个孩子`);
            if (n >= 2) out.split.push([(s) => `${s}发了张全家福。`, `${N()}个孩子站一排，真热闹。`]);
          }
        } else {
          const n = p.upd.kids ?? p.kids;
          const N = () => (rng.chance(0.6) ? cnCount(n) : String(n));
          const kid = rng.pick(["儿子", "女儿"]);
          out.pred.push(`又添了个${kid}，现在${N()}个孩子了`);
          if (n === 1) out.pred.push(`当${parent}了，生了个${kid}`);
          else out.pred.push(`生${cn(n)}胎了，是个${kid}`);
          out.full.push((s) => `${s}家现在有${N()}个孩子了`);
          out.split.push(
            n === 1
              ? [(s) => `${s}当${parent}了。`, `生了个${kid}，头一个孩子。`]
              : [(s) => `${s}家又添丁了。`, `现在一共${N()}个孩子。`],
          );
        }
        break;
      }
      case "height": {
        const H = () => this.height(p.height);
        const tall = p.height >= (p.gender === "M" ? 178 : 167);
        out.pred.push(`身高${H()}`, `个头${H()}`, `${H()}的个子`, tall ? `个子挺高，有${H()}` : `量过，${H()}`);
        if (p.height < 165) out.pred.push(`不高，也就${H()}`);
        out.full.push(
          (s) => `${s}的身高是${H()}`,
          (s) => `${s}有${H()}高`,
        );
        out.split.push([(s) => `${s}去体检了。`, `量出来身高${H()}。`]);
        break;
      }
    }
    return out;
  }

  /** A clause for one fact; `subject` "" continues a clause whose subject came first. */
  private personClause(
    p: Person,
    attr: PAttr,
    version: 0 | 1,
    subject: string,
    leadOk: boolean,
  ): { text: string; lead: boolean } {
    const ph = this.personPhrases(p, attr, version);
    const usePred = ph.pred.length > 0 && (ph.full.length === 0 || this.rng.chance(0.72));
    if (usePred) {
      if (subject === "" && !leadOk) return { text: pron(p) + this.rng.pick(ph.pred), lead: true };
      return { text: subject + this.rng.pick(ph.pred), lead: true };
    }
    return { text: this.rng.pick(ph.full)(subject === "" ? pron(p) : subject), lead: false };
  }

  private personSentence(p: Person, attrs: PAttr[], version: 0 | 1, subject: string): string {
    const parts: string[] = [];
    let lead = true;
    for (const [i, a] of attrs.entries()) {
      const c = this.personClause(p, a, version, i === 0 ? subject : "", lead);
      parts.push(c.text);
      lead = c.lead;
    }
    return parts.join("，");
  }

  // ─────────── rendering

  private draft(text: string, kind: Draft["kind"]): Draft {
    const d: Draft = { text, id: "", kind };
    return d;
  }

  private record(p: Person, attr: PAttr, version: 0 | 1, msgs: Draft[], ref: Ref): void {
    const list = p.facts.get(attr) ?? [];
    list.push({ p, attr, version, msgs, ref });
    p.facts.set(attr, list);
  }

  /** Descriptions that single `p` out within its group, for "我那个做律师的同学". */
  descOptions(p: Person, onlyTold: boolean): { attr: PAttr; phrase: string; fact: PFact; stable: boolean }[] {
    const label = p.rel.desc;
    if (!label) return [];
    const members = this.people.filter((q) => q.rel.desc === label);
    if (members.length < 2) return [];
    const others = members.filter((q) => q !== p);
    const out: { attr: PAttr; phrase: string; fact: PFact; stable: boolean }[] = [];
    const last = (a: PAttr): PFact | undefined => {
      const l = p.facts.get(a);
      return l ? l[l.length - 1] : undefined;
    };
    const add = (attr: PAttr, phrase: string, distinct: (q: Person) => boolean, stable: boolean) => {
      const fact = last(attr);
      if (!fact || (onlyTold && !fact)) return;
      if (others.every(distinct)) out.push({ attr, phrase, fact, stable });
    };
    const w = this.workOf(p);
    add("work", `做${w.job}的`, (q) => this.workOf(q).job !== w.job, !p.upd.work);
    add("work", `在${w.emp}上班的`, (q) => this.workOf(q).emp !== w.emp, !p.upd.work);
    add("hobby", `爱${p.hobby.n}的`, (q) => q.hobby.n !== p.hobby.n, true);
    add("hometown", `老家${p.hometown.c}的`, (q) => q.hometown.c !== p.hometown.c, true);
    if (p.pet) {
      const pet = p.pet;
      add("pet", `养${pet.kind}的`, (q) => q.pet?.kind !== pet.kind, true);
      add("pet", `家里有${pet.species}的`, (q) => q.pet?.species !== pet.species, true);
    }
    add("food", `最爱吃${p.food}的`, (q) => q.food !== p.food, true);
    const c = this.cityOf(p);
    add("city", `住在${c}的`, (q) => this.cityOf(q) !== c, !p.upd.city);
    const car = this.carOf(p);
    if (car) add("car", `开${car}的`, (q) => this.carOf(q) !== car, !p.upd.car);
    if (p.spouse) add("spouse", p.gender === "F" ? `老公叫${p.spouse}的` : `老婆叫${p.spouse}的`, () => true, true);
    return out;
  }

  private chooseRef(p: Person, forMention: boolean): { kind: RefKind; subject: string; descFact?: PFact } {
    const rng = this.rng;
    if (!p.introduced) {
      if (p.mode === "relFirst") return { kind: "rel", subject: p.rel.my };
      if (p.mode === "nameFirst") return { kind: "name", subject: p.name };
      return { kind: "relName", subject: `${p.rel.my}${p.name}` };
    }
    const opts: [RefKind, number][] = [
      ["name", 5],
      ["relName", 2],
    ];
    if (p.rel.unique) opts.push(["rel", 3]);
    const descs = forMention
      ? []
      : this.descOptions(p, true).filter(
          (d) => d.stable && d.attr !== "spouse" && d.attr !== "city" && d.attr !== "car",
        );
    if (descs.length) opts.push(["desc", 1]);
    const kind = rng.weighted(opts);
    switch (kind) {
      case "name":
        return { kind, subject: p.name };
      case "rel":
        return { kind, subject: p.rel.my };
      case "relName":
        return { kind, subject: `${p.rel.my}${p.name}` };
      default: {
        const d = rng.pick(descs);
        return { kind: "desc", subject: `我那个${d.phrase}${p.rel.desc ?? ""}`, descFact: d.fact };
      }
    }
  }

  private mentionText(subject: string): string {
    return this.rng.pick([
      `今天跟${subject}吃了顿饭。`,
      `刚和${subject}通完电话。`,
      `${subject}给我发了条微信。`,
      `下午在路上碰见${subject}了。`,
      `${subject}找我借了个充电宝。`,
      `晚上和${subject}视频聊了一会儿。`,
      `${subject}问我周末有没有空。`,
      `帮${subject}取了个快递。`,
      `${subject}发了张照片给我。`,
      `刚给${subject}回了消息。`,
      `中午跟${subject}一起喝了杯咖啡。`,
    ]);
  }

  renderIntro(t: Extract<Task, { t: "intro" }>): Draft[] {
    const rng = this.rng;
    const p = t.p;
    const my = p.rel.my;
    const n = p.name;
    const late = p.mode !== "plain";
    if (t.split && !t.extra) {
      const m1 = this.draft(this.mentionText(n), "link");
      const m2 = this.draft(
        rng.pick([`${pron(p)}是${my}。`, `${pron(p)}是${my}，认识好些年了。`, `忘了说，${pron(p)}是${my}。`]),
        "link",
      );
      p.introEv = [m1, m2];
      p.introduced = true;
      return [m1, m2];
    }
    let forms: string[];
    if (p.mode === "relFirst")
      forms = [`对了，一直没说，${my}叫${n}`, `忘了告诉你，${my}的名字叫${n}`, `${my}全名是${n}，之前没说过`];
    else if (p.mode === "nameFirst") forms = [`忘了说，${n}是${my}`, `${n}其实是${my}`, `补充一下，${n}是${my}`];
    else if (p.rel.unique)
      forms = [
        `${my}叫${n}`,
        `${n}是${my}`,
        `${my}全名${n}`,
        `跟你说一下，${my}的名字是${n}`,
        `记一下：${n}，${my}`,
        `${my}大名${n}`,
      ];
    else {
      forms = [`我有个${p.rel.label}叫${n}`, `${n}是${my}`, `记一下，${n}是${my}`];
      const k = p.rel.kind;
      if (k === "colleague") forms.push(`我们部门新来了个同事，叫${n}`, `${n}是我们组的同事`);
      if (k === "neighbour") forms.push(`隔壁的邻居叫${n}`, `${n}是我们楼的邻居`);
      if (k === "client") forms.push(`新接了个客户，叫${n}`, `${n}是我负责的客户`);
      if (k === "friend") forms.push(`${n}是我很好的朋友`, `介绍个朋友：${n}`);
      if (k === "school") forms.push(`${n}是${my}，一个班的`, `${my}里有个叫${n}的`);
    }
    let text = rng.pick(forms);
    const msg = this.draft("", "fact");
    if (t.extra) {
      text += "，" + this.personSentence(p, [t.extra], 0, "");
      this.record(p, t.extra, 0, [msg], { kind: "relName", msg });
    } else msg.kind = "link";
    msg.text = text + "。";
    p.introEv = [msg];
    p.introduced = true;
    void late;
    return [msg];
  }

  renderPerson(t: Extract<Task, { t: "person" }>): Draft[] {
    const rng = this.rng;
    const p = t.p;
    const out: Draft[] = [];
    // said after a line about the person, by 他/她
    const viaMention = t.shape !== "chain" && rng.chance(0.13);
    let ref: Ref;
    let subject: string;
    let leadIn = "";
    if (viaMention) {
      const r0 = this.chooseRef(p, true);
      const m0 = this.draft(this.mentionText(r0.subject), "link");
      out.push(m0);
      const ante: Ref = { kind: r0.kind, msg: m0 };
      const msgPlaceholder = this.draft("", "fact");
      ref = { kind: "pronoun", msg: msgPlaceholder, ante };
      subject = pron(p);
      leadIn = rng.pick(["", "", "聊起来才知道，", "听说"]);
    } else {
      const r = this.chooseRef(p, false);
      ref = { kind: r.kind, msg: this.draft("", "fact"), descFact: r.descFact };
      subject = r.subject;
    }
    const msg = ref.msg;
    if (t.shape === "split" && t.attrs.length === 1) {
      const a = t.attrs[0] as PAttr;
      const ph = this.personPhrases(p, a, t.version);
      if (ph.split.length) {
        const [first, second] = rng.pick(ph.split);
        msg.text = leadIn + first(subject);
        const m2 = this.draft(second, "fact");
        out.push(msg, m2);
        this.record(p, a, t.version, [msg, m2], ref);
        return out;
      }
    }
    if (t.shape === "chain" && t.attrs.length >= 2) {
      const attrs = t.attrs.slice().sort((x, y) => Number(x === "spouse") - Number(y === "spouse"));
      const cut = rng.int(1, attrs.length - 1);
      const a1 = attrs.slice(0, cut);
      const a2 = attrs.slice(cut);
      msg.text = this.deco(this.personSentence(p, a1, t.version, subject) + "。");
      for (const a of a1) this.record(p, a, t.version, [msg], ref);
      out.push(msg);
      const m2 = this.draft("", "fact");
      const ref2: Ref = { kind: "pronoun", msg: m2, ante: ref };
      m2.text = rng.pick(["", "", "还有，", "另外"]) + this.personSentence(p, a2, t.version, pron(p)) + "。";
      for (const a of a2) this.record(p, a, t.version, [m2], ref2);
      out.push(m2);
      return out;
    }
    const body = this.personSentence(p, t.attrs, t.version, subject) + "。";
    msg.text = viaMention ? leadIn + body : this.deco(body);
    for (const a of t.attrs) this.record(p, a, t.version, [msg], ref);
    out.push(msg);
    return out;
  }

  itemPhrases(it: Item, attr: IAttr): EPhr {
    const rng = this.rng;
    const out: EPhr = { pred: [], full: [] };
    switch (attr) {
      case "brand":
        out.pred.push(`${it.brand}的`, `牌子是${it.brand}`, `选的${it.brand}`);
        out.full.push((x) => `${x}是${it.brand}的`);
        break;
      case "colour": {
        const c = it.colour;
        out.pred.push(`${c}的`, `颜色选了${c}`, `挑的${c}款`, `${c}，挺耐看`, `外观是${c}`);
        out.full.push(
          (x) => `${x}是${c}的`,
          (x) => `${x}的颜色是${c}`,
          (x) => `${x}选的${c}，现在有点后悔`,
        );
        break;
      }
      case "price": {
        const P = () => this.price(it.price);
        out.pred.push(`花了${P()}`, `${P()}拿下的`, `一共${P()}`, `到手价${P()}`, `付了${P()}`);
        out.full.push(
          (x) => `${x}当初花了${P()}`,
          (x) => `${x}是${P()}买的`,
          (x) => `算了下，${x}花了${P()}`,
        );
        break;
      }
      case "where": {
        const W = it.where;
        out.pred.push(`在${W}买的`, `从${W}下的单`, `在${W}挑的`, `是在${W}入手的`);
        if (["京东", "淘宝", "拼多多", "闲鱼", "抖音直播间"].includes(W)) out.pred.push(`${W}上抢的`);
        out.full.push(
          (x) => `${x}是在${W}买的`,
          (x) => `${x}从${W}买的，售后还行`,
        );
        break;
      }
      case "when": {
        const D = () => this.ymd(it.date, it.fullDate);
        out.pred.push(`${D()}买的`, `${D()}下的单`, `是${D()}入手的`, `购买时间是${D()}`);
        out.full.push(
          (x) => `${x}是${D()}买的`,
          (x) => `${x}${D()}入手的，用到现在`,
        );
        break;
      }
    }
    void rng;
    return out;
  }

  renderItem(t: Extract<Task, { t: "item" }>): Draft[] {
    const rng = this.rng;
    const it = t.it;
    const nm = rng.pick(it.def.names);
    const m = it.def.m;
    const preds = (attrs: IAttr[]) => attrs.map((a) => rng.pick(this.itemPhrases(it, a).pred));
    if (t.first) {
      const others = t.attrs.filter((a) => a !== "brand");
      if (t.split) {
        const m1 = this.draft(
          rng.pick([`前两天买了${m}${nm}。`, `终于把${nm}买了。`, `家里添了${m}${nm}。`, `新${nm}到货了。`]),
          "fact",
        );
        const m2 = this.draft(preds(["brand", ...others]).join("，") + "。", "fact");
        for (const a of t.attrs) it.facts.set(a, [m1, m2]);
        return [m1, m2];
      }
      const b = it.brand;
      const head = rng.pick([
        `买了${m}${b}的${nm}`,
        `入手了一${m}${b}${nm}`,
        `新${nm}到了，${b}的`,
        `给家里添了${m}${nm}，牌子是${b}`,
        `咬咬牙下单了${b}的${nm}`,
        `${nm}买好了，选的${b}`,
        `换了${m}新${nm}，${b}家的`,
      ]);
      const msg = this.draft(this.deco([head, ...preds(others)].join("，") + "。"), "fact");
      for (const a of t.attrs) it.facts.set(a, [msg]);
      return [msg];
    }
    const x = rng.pick([`我的${nm}`, `那${m}${nm}`, `家里的${nm}`, `我那${m}${nm}`]);
    const [a0, ...rest] = t.attrs;
    if (!a0) return [];
    const first = rng.pick(this.itemPhrases(it, a0).full)(x);
    const msg = this.draft(this.deco([first, ...preds(rest)].join("，") + "。"), "fact");
    for (const a of t.attrs) it.facts.set(a, [msg]);
    return [msg];
  }

  placePhrases(pl: Place, attr: LAttr): EPhr {
    const out: EPhr = { pred: [], full: [] };
    switch (attr) {
      case "hours": {
        const O = () => this.time(pl.open);
        const C = () => this.time(pl.close);
        out.pred.push(
          `早上${O().replace(/^(早上|上午)/, "")}开门，${C()}关门`,
          `营业时间是${O()}到${C()}`,
          `每天${O()}开到${C()}`,
          `${C()}就打烊了，${O()}才开门`,
          `${O()}开门，一直营业到${C()}`,
        );
        out.full.push((x) => `记一下${x}的营业时间：${O()}-${C()}`);
        break;
      }
      case "closed": {
        if (pl.closed) {
          const W = () => this.weekday(pl.closed ?? 1);
          out.pred.push(`每周${W()}休息`, `${W()}不开门`, `逢${W()}歇业`, `${W()}关门一天`, `除了${W()}天天开`);
          out.full.push((x) => `${W()}别去${x}，那天歇业`);
        } else {
          out.pred.push(`全年无休`, `一周七天都营业`, `天天开，没有休息日`);
          out.full.push((x) => `${x}一年到头没有休息日`);
        }
        break;
      }
      case "distance": {
        const d = () => this.distance(pl.km);
        out.pred.push(
          `离我家${d()}`,
          `从我家过去${d()}`,
          `距离我家${d()}`,
          pl.km < 1.5 ? `就在家附近，${d()}远` : `离家有点远，${d()}`,
        );
        out.full.push(
          (x) => `从我家到${x}${d()}`,
          (x) => `去${x}要走${d()}`,
        );
        break;
      }
      case "special": {
        const s = pl.special;
        out.pred.push(s);
        out.full.push(
          (x) => `${x}最大的特点是${s}`,
          (x) => `我喜欢${x}是因为${s}`,
          (x) => `推荐${x}，${s}`,
          (x) => `${x}最特别的地方就是${s}`,
          (x) => `${x}有个好处：${s}`,
        );
        break;
      }
    }
    return out;
  }

  renderPlace(t: Extract<Task, { t: "place" }>): Draft[] {
    const rng = this.rng;
    const pl = t.pl;
    const preds = (attrs: LAttr[]) => attrs.map((a) => rng.pick(this.placePhrases(pl, a).pred));
    let text: string;
    if (t.first) {
      const head = rng.pick([
        `最近常去${pl.name}`,
        `发现了个好地方，${pl.name}`,
        `${pl.name}成了我的固定据点`,
        `最近老往${pl.name}跑`,
      ]);
      text = [head, ...preds(t.attrs)].join("，");
    } else {
      const [a0, ...rest] = t.attrs;
      if (!a0) return [];
      const ph = this.placePhrases(pl, a0);
      const first = rng.chance(0.5) ? pl.name + rng.pick(ph.pred) : rng.pick(ph.full)(pl.name);
      text = [first, ...preds(rest)].join("，");
    }
    const msg = this.draft(this.deco(text + "。"), "fact");
    for (const a of t.attrs) pl.facts.set(a, [msg]);
    return [msg];
  }

  eventPhrases(ev: Ev, attr: EAttr): EPhr {
    const rng = this.rng;
    const out: EPhr = { pred: [], full: [] };
    switch (attr) {
      case "date": {
        const D = () => this.eventDate(ev.date);
        out.pred.push(`定在${D()}`, `是${D()}办的`, `在${D()}`);
        out.full.push(
          (x) => `${D()}那天去参加了${x}`,
          (x) => `记一下，${x}在${D()}`,
          (x) => `${D()}有${x}，别忘了`,
          (x) => `${x}的日子是${D()}`,
        );
        break;
      }
      case "venue": {
        const V = ev.venue;
        out.pred.push(`在${V}办`, `选在了${V}`, `订在${V}`, `最后定在${V}，交通还挺方便`);
        out.full.push(
          (x) => `去${V}参加了${x}`,
          (x) => `${x}的地点是${V}`,
        );
        break;
      }
      case "attendees": {
        const L = this.names(ev.attendees);
        out.pred.push(`来了${L}`, `碰到了${L}，聊了好久`, `我们这边去的有${L}`);
        out.full.push(
          (x) => `${L}都去了${x}`,
          (x) => `和${L}一起参加了${x}`,
          (x) => `${x}上见到了${L}`,
        );
        break;
      }
      case "headcount": {
        const n = ev.headcount;
        const N = () => this.num(n);
        out.pred.push(`一共来了${N()}个人`, `到场${N()}人`, `整整${N()}个人`, `报名的有${N()}位`);
        if (n <= 60) out.pred.push(`坐了${cnCount(Math.ceil(n / 10))}桌，一共${N()}个人`);
        out.full.push((x) => `数了一下，${x}有${N()}人参加`);
        break;
      }
      case "cost": {
        const P = () => this.price(ev.cost);
        out.pred.push(`一共花了${P()}`, `总共消费${P()}`, `结账${P()}`, `账单${P()}`, `花销是${P()}`);
        out.full.push((x) => `算了一下${x}总花费${P()}`);
        break;
      }
      case "duration": {
        const d = ev.dur;
        if (d.kind === "span") {
          const S = this.time(d.start);
          const E = this.time(d.end);
          out.pred.push(`从${S}一直到${E}`, `${S}开始，${E}才散`, `${S}开始，${E}结束`);
        } else if (d.kind === "hours") {
          const H = () => (rng.chance(0.5) ? cnCount(d.h) : String(d.h));
          out.pred.push(`前后${H()}个小时`, `持续了${H()}个小时`, `搞了${H()}个钟头`);
          out.full.push((x) => `${x}整整弄了${H()}个小时`);
        } else {
          const dd = d.days === 2 ? "两天一夜" : "三天两夜";
          out.pred.push(`玩了${dd}`, `一共${dd}`, `去了${dd}`);
        }
        break;
      }
    }
    return out;
  }

  renderEvent(t: Extract<Task, { t: "event" }>): Draft[] {
    const rng = this.rng;
    const ev = t.ev;
    const preds = (attrs: EAttr[]) => attrs.map((a) => rng.pick(this.eventPhrases(ev, a).pred));
    if (t.first && t.split && t.attrs.length >= 2) {
      const m1 = this.draft(
        rng.pick([`${this.eventDate(ev.date)}去参加了${ev.name}。`, `${ev.name}定在${this.eventDate(ev.date)}。`]),
        "fact",
      );
      const others = t.attrs.filter((a) => a !== "date");
      const m2 = this.draft(preds(others).join("，") + "。", "fact");
      ev.facts.set("date", [m1]);
      for (const a of others) ev.facts.set(a, [m1, m2]);
      return [m1, m2];
    }
    const [a0, ...rest] = t.attrs;
    if (!a0) return [];
    const ph = this.eventPhrases(ev, a0);
    const first =
      ph.pred.length && rng.chance(0.55)
        ? ev.name + rng.pick(ph.pred)
        : rng.pick(ph.full.length ? ph.full : [(x: string) => x + rng.pick(ph.pred)])(ev.name);
    const msg = this.draft(this.deco([first, ...preds(rest)].join("，") + "。"), "fact");
    for (const a of t.attrs) ev.facts.set(a, [msg]);
    return [msg];
  }

  renderAll(tasks: Task[]): { key: number; msgs: Draft[] }[] {
    const blocks: { key: number; msgs: Draft[] }[] = [];
    for (const t of tasks) {
      let msgs: Draft[];
      switch (t.t) {
        case "intro":
          msgs = this.renderIntro(t);
          break;
        case "person":
          msgs = this.renderPerson(t);
          break;
        case "item":
          msgs = this.renderItem(t);
          break;
        case "place":
          msgs = this.renderPlace(t);
          break;
        case "event":
          msgs = this.renderEvent(t);
          break;
      }
      blocks.push({ key: t.key, msgs });
    }
    return blocks;
  }

  // ─────────── chatter

  filler(key: number): string {
    const rng = this.rng;
    for (let tries = 0; tries < 40; tries++) {
      const text = this.fillerOnce(key);
      if (!this.fillerSeen.has(text)) {
        this.fillerSeen.add(text);
        return text;
      }
    }
    const text = this.fillerOnce(key) + rng.pick(["唉。", "嗯。", "就这样吧。", "算了。"]);
    this.fillerSeen.add(text);
    return text;
  }

  private fillerOnce(key: number): string {
    const rng = this.rng;
    const kind = rng.weighted([
      ["weather", 11],
      ["mood", 11],
      ["work", 13],
      ["remind", 14],
      ["shop", 9],
      ["food", 8],
      ["plan", 10],
      ["ask", 6],
      ["self", 8],
      ["mention", 10],
    ] as const);
    const lead = rng.weighted([
      ["", 10],
      ["唉，", 1],
      ["哈哈，", 1],
      ["嗯，", 1],
      ["话说，", 1],
      ["啊，", 1],
    ] as const);
    const end = (s: string) =>
      s +
      rng.weighted([
        ["。", 6],
        ["！", 1],
        ["～", 1],
        ["……", 1],
      ] as const);
    switch (kind) {
      case "weather": {
        const [state, tails] = rng.pick(WEATHER);
        return (
          lead +
          end(
            rng.pick(["今天", "今早", "这两天", "下午", "晚上", "一整天", "早上出门的时候", "这周"]) +
              state +
              rng.pick(["", ...tails.map((t) => `，${t}`)]),
          )
        );
      }
      case "mood": {
        const [states, reasons] = rng.pick(MOODS);
        return (
          lead +
          end(
            rng.pick(["今天", "最近", "这几天", "早上起来", "下班路上"]) +
              rng.pick(states) +
              rng.pick(["", "", ...reasons.map((r) => `，${r}`)]),
          )
        );
      }
      case "work":
        return (
          lead +
          end(
            rng.pick([
              `下午开了${cn(rng.int(2, 5))}个会`,
              "周报还没写完",
              "需求又改了",
              "今天改了一整天bug",
              "客户临时加了要求",
              "ppt做到现在",
              "被拉去救火",
              `邮箱里${rng.int(30, 200)}封未读`,
              "部门在搞绩效考核",
              "出差的报销还没批",
              "系统又崩了",
              "合同卡在法务那边",
            ]) +
              rng.pick([
                "",
                "，脑子都是懵的",
                "，真的服了",
                "，晚上估计又要加班",
                "，好想辞职",
                "，还好赶在下班前搞定了",
                "，谁懂啊",
                "，明天接着弄",
              ]),
          )
        );
      case "remind":
        return (
          rng.pick(["提醒我", "帮我记着，", "别忘了提醒我", "记得提醒我", "设个提醒：", "到时候叫我"]) +
          rng.pick([
            "明天上午十点",
            "周五下班前",
            "下周一",
            "今晚八点",
            "后天",
            "这周末",
            "月底之前",
            "明早七点",
            "下午三点半",
            "周三中午",
            `${rng.int(1, 12)}号`,
          ]) +
          rng.pick([
            "交水电费",
            "给车做保养",
            "还信用卡",
            "去取快递",
            "买牙膏和洗衣液",
            "给物业打电话",
            "交房租",
            "预约体检",
            "去银行办点事",
            "把报告发出去",
            "订回家的高铁票",
            "给绿萝浇水",
            "去洗衣店取衣服",
            "换净水器滤芯",
            "给手机充话费",
            "备份电脑资料",
            "做个税申报",
            "退那件不合适的衣服",
            "续一下视频会员",
            "把垃圾拿下去",
          ]) +
          rng.pick(["", "。", "，别让我忘了。", "，谢谢。"])
        );
      case "shop": {
        const [what, tails] = rng.pick(SHOPPING);
        return lead + end(what.replace("N", cn(rng.int(2, 6))) + rng.pick(["", "", ...tails.map((t) => `，${t}`)]));
      }
      case "food":
        return (
          lead +
          end(
            rng.pick(["中午吃了", "晚饭吃的", "早上随便吃了点", "夜宵点了", "食堂今天是"]) +
              rng.pick([
                "黄焖鸡",
                "沙县小吃",
                "凉皮",
                "煎饼果子",
                "盖浇饭",
                "兰州拉面",
                "麻辣香锅",
                "馄饨",
                "包子",
                "轻食沙拉",
                "卤肉饭",
                "米线",
              ]) +
              rng.pick(["", "，一般般", "，挺好吃的", "，太咸了", "，吃撑了", "，下次不点了", "，分量有点少"]),
          )
        );
      case "plan":
        return (
          lead +
          end(
            rng.pick(["周末打算", "明天想", "下个月准备", "这周想", "过几天可能", "今晚要"]) +
              rng.pick([
                "在家大扫除",
                "去看个电影",
                "睡到自然醒",
                "把衣柜整理一下",
                "学学做饭",
                "去郊外走走",
                "把那本书看完",
                "早点睡",
                "报个游泳班",
                "去剪个头发",
                "回趟我爸妈家",
                "整理一下照片",
                "把阳台收拾出来",
              ]),
          )
        );
      case "ask":
        return (
          rng.pick(["你说", "你觉得", "问你个事，", "帮我想想，"]) +
          rng.pick([
            "周末去看电影还是在家躺着",
            "晚饭吃面还是吃饭",
            "要不要换个发型",
            "猫为什么总喜欢推东西",
            "早起真的对身体好吗",
            "喝咖啡会不会影响睡眠",
            "人为什么会打哈欠",
            "年假该怎么安排",
            "绿萝叶子发黄是怎么回事",
            "跑步膝盖疼要不要紧",
          ]) +
          "？"
        );
      case "self":
        return (
          lead +
          end(
            rng.pick([
              "昨晚又熬夜了",
              "最近在学英语",
              `跑步打卡第${rng.int(3, 90)}天`,
              `体重又涨了${cn(rng.int(1, 5))}斤`,
              "最近睡眠不太好",
              "终于把剧追完了",
              `今天喝了${cn(rng.int(2, 4))}杯咖啡`,
              "家里的灯泡坏了一个",
              "眼镜腿松了",
              `今天走了${rng.int(6, 20)}000步`,
            ]) + rng.pick(["", "", "，得注意了", "，随便记一下", "，感觉还行"]),
          )
        );
      case "mention": {
        const eligible = this.people.filter((p) => p.introKey < key || (p.rel.unique && p.mode === "relFirst"));
        if (!eligible.length) return this.fillerOnce(key);
        const p = rng.pick(eligible);
        const subj = p.introKey < key && rng.chance(0.75) ? p.name : p.rel.unique ? p.rel.my : p.name;
        return (
          lead +
          end(
            subj +
              rng.pick([
                "在群里发了个红包",
                "给我发了条语音",
                "问我周末有没有空",
                "找我借了个充电宝",
                "给我转了篇文章",
                "说要请我吃饭",
                "在朋友圈晒了张照片",
                "跟我吐槽了半天",
                "帮我带了杯奶茶",
                "约我下周见面",
                "给我点了个赞",
                "问我要了个链接",
              ]) +
              rng.pick(["", "", "，聊得挺开心", "，有点意外", "，没说几句就挂了", "，我还没回"]),
          )
        );
      }
    }
  }

  // ─────────── evidence

  anchors(ref: Ref, p: Person): { name: Draft[]; rel: Draft[] } {
    let name: Draft[] | null = null;
    let relA: Draft[] | null = null;
    switch (ref.kind) {
      case "name":
        name = [];
        break;
      case "rel":
        relA = [];
        break;
      case "relName":
        name = [];
        relA = [];
        break;
      case "pronoun": {
        if (!ref.ante) throw new Error("pronoun without antecedent");
        const a = this.anchors(ref.ante, p);
        name = [ref.ante.msg, ...a.name];
        relA = [ref.ante.msg, ...a.rel];
        break;
      }
      case "relPron": {
        if (!ref.ante) throw new Error("pronoun without antecedent");
        name = [ref.ante.msg, ...this.anchors(ref.ante, p).name];
        relA = [];
        break;
      }
      case "desc": {
        const f = ref.descFact;
        if (!f) throw new Error("description without its fact");
        const a = this.anchors(f.ref, p);
        const d = uniq([...f.msgs, ...a.name, ...a.rel]);
        name = d;
        relA = d;
        break;
      }
    }
    if (name === null) name = uniq([...(relA ?? []), ...p.introEv]);
    if (relA === null) relA = uniq([...name, ...p.introEv]);
    return { name: uniq(name), rel: uniq(relA) };
  }

  cur(p: Person, a: PAttr): PFact | undefined {
    const l = p.facts.get(a);
    return l ? l[l.length - 1] : undefined;
  }
  first(p: Person, a: PAttr): PFact | undefined {
    const l = p.facts.get(a);
    return l && l.length > 1 ? l[0] : undefined;
  }
  ev1(f: PFact, mode: "name" | "rel"): Draft[] {
    return uniq([...f.msgs, ...this.anchors(f.ref, f.p)[mode]]);
  }
  /** Two facts of one person joined (a description and an asked attribute), optionally also tied to the group. */
  join(f1: PFact, f2: PFact, needRel: boolean): Draft[] {
    const base = uniq([...f1.msgs, ...f2.msgs]);
    const a1 = this.anchors(f1.ref, f1.p);
    const a2 = this.anchors(f2.ref, f2.p);
    const options: Draft[][] = [];
    if (f1.ref === f2.ref) {
      options.push(needRel ? uniq([...base, ...a1.rel]) : base);
    } else {
      const viaName = uniq([...base, ...a1.name, ...a2.name]);
      if (needRel) {
        options.push(uniq([...viaName, ...a1.rel]), uniq([...viaName, ...a2.rel]));
      } else options.push(viaName);
      options.push(uniq([...base, ...a1.rel, ...a2.rel]));
    }
    let best = options[0] ?? base;
    for (const o of options) if (o.length < best.length) best = o;
    return best;
  }
}

// ───────────────────────────── questions

function personX(b: LogBuilder, p: Person, mode: "name" | "rel"): string {
  if (mode === "rel") return p.rel.my;
  if (!p.rel.unique && b.rng.chance(0.3)) return `${p.rel.my}${p.name}`;
  return p.name;
}

function askPerson(b: LogBuilder, p: Person, attr: PAttr, x: string, sub: number): string | null {
  const rng = b.rng;
  const sp = p.gender === "F" ? ["老公", "丈夫", "先生"] : ["老婆", "妻子", "太太"];
  switch (attr) {
    case "age":
      return p.ageForm === "age"
        ? rng.pick([`${x}今年多大了？`, `${x}几岁了？`, `${x}多大年纪？`, `${x}今年几岁？`, `${x}岁数多大？`])
        : rng.pick([`${x}是哪年出生的？`, `${x}哪一年生的？`, `${x}的出生年份是哪年？`, `${x}是几几年的？`]);
    case "birthday":
      return rng.pick([
        `${x}的生日是哪天？`,
        `${x}几月几号过生日？`,
        `${x}生日是几号？`,
        `什么时候该给${x}过生日？`,
        `${x}哪天生日？`,
      ]);
    case "city":
      return rng.pick([
        `${x}住在哪个城市？`,
        `${x}现在在哪儿生活？`,
        `${x}人在哪座城市？`,
        `${x}现在住哪？`,
        `要去看${x}得去哪个城市？`,
        `${x}定居在哪里？`,
      ]);
    case "hometown":
      return rng.pick([
        `${x}老家是哪里的？`,
        `${x}是哪里人？`,
        `${x}的家乡在哪？`,
        `${x}籍贯是哪儿？`,
        `${x}是在哪长大的？`,
      ]);
    case "work":
      return sub % 2 === 0
        ? rng.pick([
            `${x}是做什么工作的？`,
            `${x}是干哪行的？`,
            `${x}的职业是什么？`,
            `${x}从事什么工作？`,
            `${x}是干什么的？`,
          ])
        : rng.pick([
            `${x}在哪里上班？`,
            `${x}在哪个单位工作？`,
            `${x}在哪家公司？`,
            `${x}的工作单位是哪？`,
            `${x}每天去哪儿上班？`,
          ]);
    case "hobby":
      return rng.pick([
        `${x}喜欢干什么？`,
        `${x}有什么爱好？`,
        `${x}业余时间一般做什么？`,
        `${x}平时爱玩什么？`,
        `${x}的兴趣是什么？`,
        `${x}周末一般干嘛？`,
      ]);
    case "food":
      return rng.pick([
        `${x}最喜欢吃什么？`,
        `请${x}吃饭点什么好？`,
        `${x}爱吃什么？`,
        `${x}最爱的食物是什么？`,
        `${x}口味上偏爱什么菜？`,
      ]);
    case "pet":
      if (!p.pet) return rng.pick([`${x}养宠物了吗？`, `${x}家有没有猫狗？`, `${x}家里有小动物吗？`]);
      return sub % 2 === 0
        ? rng.pick([`${x}养了什么宠物？`, `${x}家里养的是什么动物？`, `${x}的宠物是什么品种？`])
        : rng.pick([
            `${x}家的宠物叫什么？`,
            `${x}的${p.pet.species}叫什么名字？`,
            `${x}那${p.pet.measure}${p.pet.species}的名字是？`,
          ]);
    case "car":
      if (!b.carOf(p)) return rng.pick([`${x}有车吗？`, `${x}平时开车吗？`, `${x}家里有没有车？`]);
      return rng.pick([
        `${x}开什么车？`,
        `${x}的车是什么牌子？`,
        `${x}开的是哪个品牌的车？`,
        `${x}的座驾是什么？`,
        `${x}有车吗？`,
      ]);
    case "phone":
      return rng.pick([`${x}用什么手机？`, `${x}的手机是什么牌子？`, `${x}用的哪家的手机？`, `${x}拿的是什么手机？`]);
    case "spouse":
      return rng.pick([
        `${x}的${rng.pick(sp)}叫什么名字？`,
        `${x}的另一半叫什么？`,
        p.gender === "F" ? `${x}嫁给了谁？` : `${x}娶的是谁？`,
        `${x}爱人叫什么？`,
        `${x}的${rng.pick(sp)}是谁？`,
      ]);
    case "kids":
      return rng.pick([`${x}有几个孩子？`, `${x}家几个娃？`, `${x}有小孩吗？`, `${x}家里有几个小朋友？`]);
    case "height":
      return rng.pick([`${x}多高？`, `${x}身高多少？`, `${x}个子有多高？`, `${x}有一米几？`, `${x}大概多高的个子？`]);
  }
}

function askItem(b: LogBuilder, it: Item, attr: IAttr | "type", x: string): string {
  const rng = b.rng;
  switch (attr) {
    case "type":
      return rng.pick([`${x}是什么？`, `${x}是个啥？`, `${x}具体是什么东西？`]);
    case "brand":
      return rng.pick([`${x}是什么牌子的？`, `${x}是哪个品牌？`, `${x}是哪家出的？`, `${x}买的什么牌子？`]);
    case "colour":
      return rng.pick([`${x}是什么颜色的？`, `${x}什么色？`, `${x}的颜色是？`]);
    case "price":
      return rng.pick([`${x}多少钱买的？`, `${x}花了多少钱？`, `${x}价格是多少？`, `${x}当时多少钱？`]);
    case "where":
      return rng.pick([`${x}是在哪买的？`, `${x}从哪儿买的？`, `${x}在哪个渠道买的？`, `${x}是哪里入手的？`]);
    case "when":
      return it.fullDate
        ? rng.pick([`${x}是什么时候买的？`, `${x}哪天买的？`, `${x}什么时候入手的？`])
        : rng.pick([`${x}是什么时候买的？`, `${x}是哪年哪月买的？`, `${x}什么时候入手的？`]);
  }
}

function askPlace(b: LogBuilder, pl: Place, attr: LAttr, x: string, sub: number): string {
  const rng = b.rng;
  switch (attr) {
    case "hours":
      return sub % 2 === 0
        ? rng.pick([`${x}几点开门？`, `${x}早上几点营业？`, `${x}最早几点能去？`])
        : rng.pick([`${x}几点关门？`, `${x}营业到几点？`, `${x}晚上开到几点？`, `${x}几点打烊？`]);
    case "closed":
      return rng.pick([`${x}哪天休息？`, `${x}周几不开门？`, `${x}有休息日吗？`]);
    case "distance":
      return rng.pick([`${x}离我家多远？`, `从我家到${x}有多远？`, `${x}距离我家多少路？`, `去${x}远不远？`]);
    case "special":
      return rng.pick([`${x}有什么特别的？`, `${x}有什么特色？`, `我为什么喜欢去${x}？`, `${x}的亮点是什么？`]);
  }
  void pl;
}

function askEvent(b: LogBuilder, ev: Ev, attr: EAttr | "name", x: string): string {
  const rng = b.rng;
  switch (attr) {
    case "name":
      return rng.pick([`${x}是什么活动？`, `${x}是哪个活动？`, `${x}叫什么来着？`]);
    case "date":
      return rng.pick([`${x}是哪天？`, `${x}是几号办的？`, `${x}在什么时候？`, `${x}的日期是哪天？`]);
    case "venue":
      return rng.pick([`${x}在哪办的？`, `${x}的地点在哪？`, `${x}去的是哪儿？`, `${x}在什么地方举行？`]);
    case "attendees":
      return rng.pick([`${x}都有谁去了？`, `${x}我认识的人里谁参加了？`, `${x}见到了哪些人？`]);
    case "headcount":
      return rng.pick([`${x}来了多少人？`, `${x}有多少人参加？`, `${x}一共几个人？`, `${x}规模多大，多少人？`]);
    case "cost":
      return rng.pick([`${x}花了多少钱？`, `${x}总共消费多少？`, `${x}的开销是多少？`, `${x}一共多少钱？`]);
    case "duration":
      return rng.pick([`${x}持续了多久？`, `${x}搞了多长时间？`, `${x}前后多长时间？`, `${x}玩了多久？`]);
  }
  void ev;
}

const itemX = (b: LogBuilder, it: Item): string => {
  const nm = b.rng.pick(it.def.names);
  return b.rng.pick([`我的${nm}`, `我那${it.def.m}${nm}`, `家里的${nm}`, `我买的${nm}`]);
};

function candidates(b: LogBuilder): Record<Cat, Cand[]> {
  const rng = b.rng;
  const out: Record<Cat, Cand[]> = {
    simple: [],
    conditional: [],
    comparative: [],
    aggregative: [],
    "post-processing": [],
    noisy: [],
  };
  const add = (cat: Cat, text: string | null, ev: Draft[], key: string, need?: (string[] | null)[]) => {
    if (!text || ev.length === 0 || ev.length > MAX_EVIDENCE) return;
    out[cat].push({ cat, text, ev: uniq(ev), key, need: need?.filter((n): n is string[] => n !== null) });
  };
  const people = b.people;
  const modes = (p: Person): ("name" | "rel")[] => (p.rel.unique ? ["name", "rel"] : ["name"]);

  // simple: people
  for (const p of people) {
    for (const mode of modes(p)) {
      if (mode === "name")
        add(
          "simple",
          rng.pick([`${p.name}是我的什么人？`, `${p.name}跟我是什么关系？`, `${p.name}是谁来着？`]),
          p.introEv,
          `intro:${p.idx}:n`,
        );
      else
        add(
          "simple",
          rng.pick([`${p.rel.my}叫什么名字？`, `${p.rel.my}的全名是什么？`, `${p.rel.my}姓什么叫什么？`]),
          p.introEv,
          `intro:${p.idx}:r`,
        );
      for (const a of P_ATTRS) {
        const f = b.cur(p, a);
        if (!f) continue;
        const subs = a === "work" || (a === "pet" && p.pet) ? [0, 1] : [0];
        for (const sub of subs)
          add(
            "simple",
            askPerson(b, p, a, personX(b, p, mode), sub),
            b.ev1(f, mode),
            `s:${p.idx}:${a}:${sub}:${mode}`,
            [valueWords(b, p, a, sub, 1)],
          );
        const old = b.first(p, a);
        if (old) {
          const x = personX(b, p, mode);
          const q =
            a === "city"
              ? rng.pick([`${x}搬家之前住在哪个城市？`, `${x}以前住哪？后来搬去哪了？`])
              : a === "work"
                ? rng.pick([`${x}换工作之前在哪上班？`, `${x}以前在哪个单位？`])
                : a === "car"
                  ? p.car
                    ? rng.pick([`${x}之前开的什么车，现在换成什么了？`, `${x}换车以前开的是什么？`])
                    : rng.pick([`${x}以前有车吗？现在开什么？`, `${x}是什么时候开始有车的，买的什么车？`])
                  : a === "phone"
                    ? rng.pick([`${x}以前用什么手机，现在呢？`, `${x}换手机之前用的什么牌子？`])
                    : rng.pick([`${x}原来有几个孩子，现在几个？`, `${x}添孩子之前家里几个娃？`]);
          add("simple", q, uniq([...b.ev1(old, mode), ...b.ev1(f, mode)]), `h:${p.idx}:${a}:${mode}`, [
            valueWords(b, p, a, 1, 0),
            valueWords(b, p, a, 1, 1),
          ]);
        }
      }
    }
  }
  // simple: things, places, events
  for (const it of b.items)
    for (const [a, msgs] of it.facts)
      add("simple", askItem(b, it, a, itemX(b, it)), msgs, `si:${it.def.type}:${a}`, [
        a === "brand" ? [it.brand] : a === "where" ? [it.where] : a === "colour" ? [it.colour] : null,
      ]);
  for (const pl of b.places)
    for (const [a, msgs] of pl.facts) {
      for (const sub of a === "hours" ? [0, 1] : [0])
        add("simple", askPlace(b, pl, a, pl.name, sub), msgs, `sl:${pl.name}:${a}:${sub}`);
    }
  for (const ev of b.events)
    for (const [a, msgs] of ev.facts) add("simple", askEvent(b, ev, a, ev.name), msgs, `se:${ev.name}:${a}`);

  // conditional: a person described by another attribute
  for (const p of people) {
    const descs = b.descOptions(p, true);
    const anyone = descsForAll(b, p);
    const told = P_ATTRS.filter((a) => b.cur(p, a));
    for (const d of rng
      .shuffle([...descs.map((x) => ({ ...x, group: true })), ...anyone.map((x) => ({ ...x, group: false }))])
      .slice(0, 6)) {
      const asked = told.filter((a) => a !== d.attr && !(d.attr === "pet" && a === "pet"));
      if (!asked.length) continue;
      const a = rng.pick(asked);
      const fa = b.cur(p, a);
      if (!fa) continue;
      const x = d.group
        ? rng.pick([
            `我那个${d.phrase}${p.rel.desc ?? ""}`,
            `${d.phrase}那个${p.rel.desc ?? ""}`,
            `${d.phrase}那位${p.rel.desc ?? ""}`,
          ])
        : rng.pick([`我认识的人里${d.phrase}那位`, `那个${d.phrase}人`]);
      const sub = rng.int(0, 1);
      add("conditional", askPerson(b, p, a, x, sub), b.join(d.fact, fa, d.group), `c:${p.idx}:${d.phrase}:${a}`, [
        valueWords(b, p, a, sub, 1),
        valueWords(b, p, d.attr, d.phrase.startsWith("在") ? 1 : 0, 1),
      ]);
    }
  }
  // conditional: things, places, events
  const itemDescs = (it: Item): { phrase: string; msgs: Draft[]; attr: IAttr }[] => {
    const res: { phrase: string; msgs: Draft[]; attr: IAttr }[] = [];
    const others = b.items.filter((o) => o !== it);
    const w = it.facts.get("where");
    if (w && others.every((o) => o.where !== it.where))
      res.push({ phrase: `在${it.where}买的那个东西`, msgs: w, attr: "where" });
    const c = it.facts.get("colour");
    if (c && others.every((o) => o.colour !== it.colour))
      res.push({ phrase: `${it.colour}的那个东西`, msgs: c, attr: "colour" });
    const d = it.facts.get("when");
    if (d && others.every((o) => o.date.y !== it.date.y || o.date.m !== it.date.m))
      res.push({ phrase: `${it.date.y}年${it.date.m}月买的那个东西`, msgs: d, attr: "when" });
    const pr = it.facts.get("price");
    if (pr && others.every((o) => o.price !== it.price))
      res.push({ phrase: `花了${it.price}块买的那个东西`, msgs: pr, attr: "price" });
    return res;
  };
  for (const it of b.items) {
    for (const d of itemDescs(it)) {
      const asks = ([...it.facts.keys()] as (IAttr | "type")[]).filter((a) => a !== d.attr);
      asks.push("type");
      const a = rng.pick(asks);
      const msgs = a === "type" ? d.msgs : (it.facts.get(a) ?? []);
      add("conditional", askItem(b, it, a, d.phrase), uniq([...d.msgs, ...msgs]), `ci:${it.def.type}:${d.attr}:${a}`);
    }
  }
  for (const pl of b.places) {
    const others = b.places.filter((o) => o !== pl);
    const descs: { phrase: string; attr: LAttr }[] = [];
    const sp = pl.special.endsWith("的") ? pl.special : `${pl.special}的`;
    if (pl.facts.get("special")) descs.push({ phrase: rng.pick([`那个${sp}地方`, `${sp}那家`]), attr: "special" });
    if (pl.closed && pl.facts.get("closed") && others.every((o) => o.closed !== pl.closed))
      descs.push({
        phrase: `${WEEK[pl.closed - 1] === "日" ? "周日" : `周${WEEK[pl.closed - 1] ?? ""}`}休息的那个地方`,
        attr: "closed",
      });
    for (const d of descs) {
      const asks = [...pl.facts.keys()].filter((a) => a !== d.attr);
      if (!asks.length) continue;
      const a = rng.pick(asks);
      add(
        "conditional",
        askPlace(b, pl, a, d.phrase, rng.int(0, 1)),
        uniq([...(pl.facts.get(d.attr) ?? []), ...(pl.facts.get(a) ?? [])]),
        `cl:${pl.name}:${d.attr}:${a}`,
      );
    }
  }
  for (const ev of b.events) {
    const others = b.events.filter((o) => o !== ev);
    const descs: { phrase: string; attr: EAttr; msgs: Draft[] }[] = [];
    const v = ev.facts.get("venue");
    if (v && others.every((o) => o.venue !== ev.venue))
      descs.push({ phrase: `在${ev.venue}办的那次活动`, attr: "venue", msgs: v });
    const dt = ev.facts.get("date");
    if (dt && others.every((o) => o.date.m !== ev.date.m))
      descs.push({ phrase: `${ev.date.m}月份那次活动`, attr: "date", msgs: dt });
    const at = ev.facts.get("attendees");
    if (at) {
      for (const p of ev.attendees) {
        if (others.some((o) => o.attendees.includes(p))) continue;
        descs.push({ phrase: `${p.name}也去了的那次活动`, attr: "attendees", msgs: at });
        break;
      }
    }
    for (const d of descs) {
      const asks = ([...ev.facts.keys()] as (EAttr | "name")[]).filter((a) => a !== d.attr);
      asks.push("name");
      const a = rng.pick(asks);
      const msgs = a === "name" ? [] : (ev.facts.get(a) ?? []);
      add("conditional", askEvent(b, ev, a, d.phrase), uniq([...d.msgs, ...msgs]), `ce:${ev.name}:${d.attr}:${a}`);
    }
  }

  // comparative
  const pairs = <T>(list: T[], n: number): [T, T][] => {
    const res: [T, T][] = [];
    for (let i = 0; i < n * 3 && res.length < n && list.length >= 2; i++) {
      const [x, y] = rng.sample(list, 2);
      if (x !== undefined && y !== undefined) res.push([x, y]);
    }
    return res;
  };
  const told = (a: PAttr) => people.filter((p) => b.cur(p, a));
  const pairEv = (p: Person, q: Person, a: PAttr, mp: "name" | "rel", mq: "name" | "rel") => {
    const fp = b.cur(p, a);
    const fq = b.cur(q, a);
    return fp && fq ? uniq([...b.ev1(fp, mp), ...b.ev1(fq, mq)]) : [];
  };
  const pm = (p: Person): "name" | "rel" => (p.rel.unique && rng.chance(0.5) ? "rel" : "name");
  const cmpPeople = (
    a: PAttr,
    n: number,
    ok: (p: Person, q: Person) => boolean,
    text: (x: string, y: string) => string,
  ) => {
    for (const [p, q] of pairs(told(a), n)) {
      if (!ok(p, q)) continue;
      const mp = pm(p);
      const mq = pm(q);
      add(
        "comparative",
        text(personX(b, p, mp), personX(b, q, mq)),
        pairEv(p, q, a, mp, mq),
        `cmp:${a}:${Math.min(p.idx, q.idx)}:${Math.max(p.idx, q.idx)}`,
      );
    }
  };
  cmpPeople(
    "age",
    30,
    (p, q) => p.birthYear !== q.birthYear,
    (x, y) =>
      rng.pick([`${x}和${y}谁年纪大？`, `${x}跟${y}比，谁更年轻？`, `${x}和${y}哪个岁数大一些？`, `${x}和${y}谁大？`]),
  );
  cmpPeople(
    "height",
    25,
    (p, q) => p.height !== q.height,
    (x, y) => rng.pick([`${x}和${y}谁更高？`, `${x}跟${y}比谁个子矮？`, `${x}和${y}哪个个头高？`]),
  );
  cmpPeople(
    "kids",
    10,
    (p, q) => b.kidsOf(p) !== b.kidsOf(q),
    (x, y) => rng.pick([`${x}和${y}谁家孩子多？`, `${x}跟${y}谁的小孩更多？`]),
  );
  cmpPeople(
    "birthday",
    15,
    (p, q) => p.bday.m * 100 + p.bday.d !== q.bday.m * 100 + q.bday.d,
    (x, y) => rng.pick([`一年里先给${x}还是${y}过生日？`, `${x}和${y}谁的生日在前面（按月份算）？`]),
  );
  cmpPeople(
    "hometown",
    12,
    () => true,
    (x, y) => rng.pick([`${x}和${y}是老乡吗？`, `${x}跟${y}老家是不是同一个地方？`]),
  );
  cmpPeople(
    "city",
    12,
    () => true,
    (x, y) => rng.pick([`${x}和${y}住在同一个城市吗？`, `${x}跟${y}在一个城市生活吗？`]),
  );
  cmpPeople(
    "phone",
    8,
    () => true,
    (x, y) => rng.pick([`${x}和${y}的手机是一个牌子吗？`, `${x}跟${y}用的手机品牌一样吗？`]),
  );
  for (const [i, j] of pairs(b.items, 30)) {
    const nx = rng.pick(i.def.names);
    const ny = rng.pick(j.def.names);
    if (i.facts.get("price") && j.facts.get("price") && i.price !== j.price)
      add(
        "comparative",
        rng.pick([`我的${nx}和${ny}哪个更贵？`, `${nx}跟${ny}比，哪个花的钱多？`]),
        [...(i.facts.get("price") ?? []), ...(j.facts.get("price") ?? [])],
        `cmpi:p:${i.def.type}:${j.def.type}`,
      );
    const di = i.facts.get("when");
    const dj = j.facts.get("when");
    const ki = i.date.y * 10000 + i.date.m * 100 + (i.fullDate ? i.date.d : 0);
    const kj = j.date.y * 10000 + j.date.m * 100 + (j.fullDate ? j.date.d : 0);
    const sameMonth = i.date.y === j.date.y && i.date.m === j.date.m;
    if (di && dj && ki !== kj && !(sameMonth && (!i.fullDate || !j.fullDate)))
      add(
        "comparative",
        rng.pick([`${nx}和${ny}哪个先买的？`, `我的${nx}和${ny}哪个买得更早？`]),
        [...di, ...dj],
        `cmpi:d:${i.def.type}:${j.def.type}`,
      );
  }
  for (const [x, y] of pairs(b.places, 20)) {
    const dx = x.facts.get("distance");
    const dy = y.facts.get("distance");
    if (dx && dy && x.km !== y.km)
      add(
        "comparative",
        rng.pick([`${x.name}和${y.name}哪个离我家近？`, `${x.name}跟${y.name}哪个更远？`]),
        [...dx, ...dy],
        `cmpl:d:${x.name}:${y.name}`,
      );
    const hx = x.facts.get("hours");
    const hy = y.facts.get("hours");
    const cx = x.close.h * 60 + x.close.min;
    const cy = y.close.h * 60 + y.close.min;
    if (hx && hy && cx !== cy)
      add(
        "comparative",
        rng.pick([`${x.name}和${y.name}哪个关门晚？`, `晚上${x.name}和${y.name}哪个开得更久？`]),
        [...hx, ...hy],
        `cmpl:c:${x.name}:${y.name}`,
      );
    const ox = x.open.h * 60 + x.open.min;
    const oy = y.open.h * 60 + y.open.min;
    if (hx && hy && ox !== oy && rng.chance(0.5))
      add("comparative", `${x.name}和${y.name}哪个开门早？`, [...hx, ...hy], `cmpl:o:${x.name}:${y.name}`);
  }
  for (const [x, y] of pairs(b.events, 20)) {
    const hx = x.facts.get("headcount");
    const hy = y.facts.get("headcount");
    if (hx && hy && x.headcount !== y.headcount)
      add(
        "comparative",
        rng.pick([`${x.name}和${y.name}哪个人更多？`, `${x.name}跟${y.name}比，哪个规模大？`]),
        [...hx, ...hy],
        `cmpe:h:${x.name}:${y.name}`,
      );
    const cx = x.facts.get("cost");
    const cy = y.facts.get("cost");
    if (cx && cy && x.cost !== y.cost)
      add(
        "comparative",
        rng.pick([`${x.name}和${y.name}哪个花钱多？`, `${x.name}跟${y.name}哪个更费钱？`]),
        [...cx, ...cy],
        `cmpe:c:${x.name}:${y.name}`,
      );
    const dx = x.facts.get("date");
    const dy = y.facts.get("date");
    if (dx && dy && dayOfYear(x.date) !== dayOfYear(y.date))
      add(
        "comparative",
        rng.pick([`${x.name}和${y.name}哪个先办的？`, `${x.name}和${y.name}哪个在前？`]),
        [...dx, ...dy],
        `cmpe:d:${x.name}:${y.name}`,
      );
  }

  // aggregative: groups of people
  const groupKeys = Object.keys(GROUP_OWN) as GroupKey[];
  for (const g of groupKeys) {
    const members = people.filter((p) => p.rel.groups.includes(g));
    if (members.length < 2) continue;
    const own = GROUP_OWN[g];
    const collect = (a: PAttr, keep: (p: Person) => boolean, withName: boolean): Draft[] | null => {
      const ev: Draft[] = [];
      let n = 0;
      for (const p of members) {
        if (!keep(p)) continue;
        const f = b.cur(p, a);
        if (!f) continue;
        const an = b.anchors(f.ref, p);
        ev.push(...f.msgs, ...an.rel, ...(withName ? an.name : []));
        n++;
      }
      return n >= 2 ? uniq(ev) : null;
    };
    const all = (a: PAttr) => members.every((p) => b.cur(p, a));
    const list = (a: PAttr, text: string, keep: (p: Person) => boolean = () => true, withName = false) => {
      const ev = collect(a, keep, withName);
      if (ev) add("aggregative", text, ev, `ag:${g}:${text}`);
    };
    list("city", rng.pick([`${own}都住在哪些城市？`, `${own}分布在哪几个城市？`]));
    list("hometown", rng.pick([`${own}的老家都在哪？`, `${own}都是哪里人？`]));
    list("work", rng.pick([`${own}都是做什么的？`, `${own}各自干哪一行？`]));
    list("hobby", rng.pick([`${own}平时都有些什么爱好？`, `${own}业余时间都喜欢干嘛？`]));
    // a count or a list of brands needs no names; "who" does
    const who = () => rng.chance(0.5);
    const dogWho = who();
    list("pet", dogWho ? `${own}中谁家养狗？` : `${own}里有几个人养了狗？`, (p) => p.pet?.species === "狗", dogWho);
    const catWho = who();
    list("pet", catWho ? `${own}中谁家有猫？` : `${own}里养猫的有几个？`, (p) => p.pet?.species === "猫", catWho);
    const carWho = who();
    list("car", carWho ? `${own}里谁有车，开的什么？` : `${own}都开什么牌子的车？`, (p) => b.carOf(p) !== null, carWho);
    list("spouse", `${own}里结了婚的有哪几个？`, () => true, true);
    if (all("age")) {
      const ev = collect("age", () => true, true);
      if (ev) add("aggregative", rng.pick([`${own}里谁年纪最大？`, `${own}中谁最年轻？`]), ev, `ag:${g}:oldest`);
    }
    if (all("height")) {
      const ev = collect("height", () => true, true);
      if (ev) add("aggregative", rng.pick([`${own}里谁最高？`, `${own}中谁个子最矮？`]), ev, `ag:${g}:tallest`);
    }
    if (all("kids")) {
      const ev = collect("kids", () => true, false);
      if (ev)
        add("aggregative", rng.pick([`${own}一共有多少个孩子？`, `${own}家的孩子加起来有几个？`]), ev, `ag:${g}:kids`);
    }
  }
  // aggregative: everyone sharing a value
  const byValue = (a: PAttr, value: (p: Person) => string | null, text: (v: string) => string) => {
    const groups = new Map<string, Person[]>();
    for (const p of people) {
      if (!b.cur(p, a)) continue;
      const v = value(p);
      if (v === null) continue;
      groups.set(v, [...(groups.get(v) ?? []), p]);
    }
    for (const [v, ps] of groups) {
      if (ps.length < 2) continue;
      const ev: Draft[] = [];
      for (const p of ps) {
        const f = b.cur(p, a);
        if (f) ev.push(...b.ev1(f, "name"));
      }
      add("aggregative", text(v), ev, `agv:${a}:${v}`);
    }
  };
  byValue(
    "city",
    (p) => b.cityOf(p),
    (v) => rng.pick([`住在${v}的有哪些人？`, `我认识的人里谁在${v}生活？`]),
  );
  byValue(
    "hometown",
    (p) => p.hometown.c,
    (v) => rng.pick([`老家是${v}的有谁？`, `哪些人是${v}那边的？`]),
  );
  byValue(
    "pet",
    (p) => p.pet?.species ?? null,
    (v) => rng.pick([`谁家养了${v}？`, `我认识的人里哪些养${v}？`]),
  );
  byValue(
    "car",
    (p) => b.carOf(p),
    (v) => rng.pick([`哪些人开${v}？`, `谁的车是${v}的？`]),
  );
  byValue(
    "phone",
    (p) => b.phoneOf(p),
    (v) => rng.pick([`谁用${v}手机？`, `身边哪些人的手机是${v}的？`]),
  );
  byValue(
    "hobby",
    (p) => p.hobby.n,
    (v) => rng.pick([`谁喜欢${v}？`, `我认识的人里哪些爱${v}？`]),
  );
  byValue(
    "food",
    (p) => p.food,
    (v) => rng.pick([`哪些人最爱吃${v}？`, `请谁吃${v}最合适？`]),
  );
  // aggregative: things, places, events
  const aggItems = (text: string, keep: (it: Item) => boolean, attrs: IAttr[], key: string) => {
    // the things known to match (their first attribute told); every other attribute asked must be told for all of them
    const sel = b.items.filter((it) => keep(it) && attrs[0] !== undefined && it.facts.get(attrs[0]));
    if (sel.length < 2 || !sel.every((it) => attrs.every((a) => it.facts.get(a)))) return;
    add(
      "aggregative",
      text,
      sel.flatMap((it) => attrs.flatMap((a) => it.facts.get(a) ?? [])),
      key,
    );
  };
  for (const w of uniq(b.items.map((i) => i.where)))
    aggItems(
      rng.pick([`我在${w}买过哪些东西？`, `哪些东西是从${w}买的？`]),
      (i) => i.where === w,
      ["where"],
      `agi:w:${w}`,
    );
  for (const c of uniq(b.items.map((i) => i.colour)))
    aggItems(
      rng.pick([`我有哪些东西是${c}的？`, `${c}的东西我买过哪些？`]),
      (i) => i.colour === c,
      ["colour"],
      `agi:c:${c}`,
    );
  for (const y of [YEAR, YEAR - 1, YEAR - 2]) {
    aggItems(
      rng.pick([`${y}年我买了哪些东西？`, `${y === YEAR ? "今年" : `${y}年`}都添置了些什么？`]),
      (i) => i.date.y === y,
      ["when"],
      `agi:y:${y}`,
    );
    aggItems(`${y}年买的东西一共花了多少钱？`, (i) => i.date.y === y, ["when", "price"], `agi:ys:${y}`);
  }
  for (const n of [1000, 3000, 5000])
    aggItems(
      rng.pick([`我买的东西里超过${n}块的有哪些？`, `哪些东西花了${n}以上？`]),
      (i) => i.price > n,
      ["price"],
      `agi:p:${n}`,
    );
  const aggPlaces = (text: string, keep: (pl: Place) => boolean, attr: LAttr, key: string) => {
    const sel = b.places.filter((pl) => keep(pl) && pl.facts.get(attr));
    if (sel.length < 2) return;
    add(
      "aggregative",
      text,
      sel.flatMap((pl) => pl.facts.get(attr) ?? []),
      key,
    );
  };
  for (const h of [21, 22])
    aggPlaces(
      rng.pick([`我常去的地方里哪些晚上${cn(h - 12)}点以后还开着？`, `晚上${h}点以后还能去哪些地方？`]),
      (pl) => pl.close.h * 60 + pl.close.min > h * 60,
      "hours",
      `agl:late:${h}`,
    );
  for (const h of [8, 9])
    aggPlaces(
      `哪些地方早上${cn(h)}点之前就开门了？`,
      (pl) => pl.open.h * 60 + pl.open.min < h * 60,
      "hours",
      `agl:early:${h}`,
    );
  aggPlaces(
    rng.pick([`我常去的地方里哪些有固定休息日？`, `哪些地方每周有一天不开门？`]),
    (pl) => pl.closed !== null,
    "closed",
    `agl:closed`,
  );
  for (const km of [1, 2, 5])
    aggPlaces(
      rng.pick([`离我家${cn(km)}公里以内的地方有哪些？`, `${km}公里之内我常去哪些地方？`]),
      (pl) => pl.km <= km,
      "distance",
      `agl:km:${km}`,
    );
  for (const p of people) {
    const sel = b.events.filter((ev) => ev.attendees.includes(p) && ev.facts.get("attendees"));
    if (sel.length >= 2)
      add(
        "aggregative",
        rng.pick([`${p.name}参加过哪些活动？`, `我参加的活动里哪些有${p.name}？`]),
        sel.flatMap((ev) => ev.facts.get("attendees") ?? []),
        `age:p:${p.idx}`,
      );
  }
  const aggEvents = (text: string, keep: (ev: Ev) => boolean, attrs: EAttr[], key: string) => {
    const sel = b.events.filter((ev) => keep(ev) && attrs[0] !== undefined && ev.facts.get(attrs[0]));
    if (sel.length < 2 || !sel.every((ev) => attrs.every((a) => ev.facts.get(a)))) return;
    add(
      "aggregative",
      text,
      sel.flatMap((ev) => attrs.flatMap((a) => ev.facts.get(a) ?? [])),
      key,
    );
  };
  for (const n of [20, 50, 100])
    aggEvents(
      rng.pick([`哪些活动超过${n}个人？`, `我去过的活动里人数过${n}的有哪些？`]),
      (ev) => ev.headcount > n,
      ["headcount"],
      `age:h:${n}`,
    );
  for (const n of [2000, 5000]) aggEvents(`哪些活动总花费超过${n}块？`, (ev) => ev.cost > n, ["cost"], `age:c:${n}`);
  for (const m of [4, 7, 10])
    aggEvents(
      rng.pick([`${m}月份以前我参加了哪些活动？`, `今年前${cn(m - 1)}个月去了哪些活动？`]),
      (ev) => ev.date.m < m,
      ["date"],
      `age:m:${m}`,
    );
  {
    const all = b.events.filter((ev) => ev.facts.get("cost"));
    if (all.length === b.events.length) aggEvents(`今年这些活动一共花了多少钱？`, () => true, ["cost"], `age:sum`);
  }

  // post-processing
  for (const p of people) {
    for (const mode of modes(p)) {
      const x = () => personX(b, p, mode);
      const fa = b.cur(p, "age");
      if (fa) {
        const ev = b.ev1(fa, mode);
        const q =
          p.ageForm === "age"
            ? rng.pick([
                `${x()}是哪年出生的？`,
                `${x()}属什么？`,
                `${x()}明年多大？`,
                `${x()}再过五年多少岁？`,
                `到2030年${x()}多大？`,
              ])
            : rng.pick([`${x()}今年多大？`, `${x()}明年几岁？`, `${x()}今年过的是几岁生日？`, `${x()}属什么？`]);
        add("post-processing", q, ev, `pp:age:${p.idx}:${mode}`);
      }
      const fb = b.cur(p, "birthday");
      if (fb)
        add(
          "post-processing",
          rng.pick([
            `${x()}今年的生日是星期几？`,
            `${x()}的生日在上半年还是下半年？`,
            `${x()}的生日是哪个季节？`,
            `从元旦算起，还要过几个月才到${x()}的生日？`,
          ]),
          b.ev1(fb, mode),
          `pp:bd:${p.idx}:${mode}`,
        );
      const fh = b.cur(p, "height");
      if (fh)
        add(
          "post-processing",
          rng.pick([`${x()}比一米七高还是矮，差多少厘米？`, `${x()}的身高换算成米是多少？`]),
          b.ev1(fh, mode),
          `pp:h:${p.idx}:${mode}`,
        );
      const fk = b.cur(p, "kids");
      const fs2 = b.cur(p, "spouse");
      if (fk && fs2)
        add(
          "post-processing",
          rng.pick([`${x()}家算上两口子一共几口人？`, `${x()}一家现在几口人？`]),
          uniq([...b.ev1(fk, mode), ...b.ev1(fs2, mode)]),
          `pp:fam:${p.idx}:${mode}`,
        );
    }
  }
  for (const [p, q] of pairs(told("age"), 20)) {
    if (p.birthYear === q.birthYear) continue;
    const mp = pm(p);
    const mq = pm(q);
    const [older, younger] = p.birthYear < q.birthYear ? [p, q] : [q, p];
    const mo = older === p ? mp : mq;
    const my = older === p ? mq : mp;
    add(
      "post-processing",
      `${personX(b, older, mo)}比${personX(b, younger, my)}大几岁？`,
      pairEv(older, younger, "age", mo, my),
      `pp:agediff:${p.idx}:${q.idx}`,
    );
  }
  for (const [p, q] of pairs(told("height"), 12)) {
    const mp = pm(p);
    const mq = pm(q);
    add(
      "post-processing",
      `${personX(b, p, mp)}和${personX(b, q, mq)}身高差多少厘米？`,
      pairEv(p, q, "height", mp, mq),
      `pp:hdiff:${p.idx}:${q.idx}`,
    );
  }
  for (const it of b.items) {
    const d = it.facts.get("when");
    if (d)
      add(
        "post-processing",
        rng.pick([`到今年年底，${itemX(b, it)}买了多久了？`, `${itemX(b, it)}用了几年了（算到今年）？`]),
        d,
        `ppi:age:${it.def.type}`,
      );
    if (d && it.fullDate && rng.chance(0.5))
      add("post-processing", `${itemX(b, it)}是星期几买的？`, d, `ppi:wd:${it.def.type}`);
  }
  for (const [i, j] of pairs(b.items, 15)) {
    const pi = i.facts.get("price");
    const pj = j.facts.get("price");
    if (!pi || !pj) continue;
    const ni = rng.pick(i.def.names);
    const nj = rng.pick(j.def.names);
    if (rng.chance(0.5))
      add(
        "post-processing",
        `我的${ni}和${nj}加起来花了多少钱？`,
        [...pi, ...pj],
        `ppi:sum:${i.def.type}:${j.def.type}`,
      );
    else if (i.price !== j.price) {
      const [hi, lo, nh, nl] = i.price > j.price ? [pi, pj, ni, nj] : [pj, pi, nj, ni];
      add("post-processing", `${nh}比${nl}贵多少钱？`, [...hi, ...lo], `ppi:diff:${i.def.type}:${j.def.type}`);
    }
  }
  for (const pl of b.places) {
    const h = pl.facts.get("hours");
    if (h)
      add(
        "post-processing",
        rng.pick([`${pl.name}一天营业多少个小时？`, `${pl.name}每天开门几个钟头？`]),
        h,
        `ppl:h:${pl.name}`,
      );
    const d = pl.facts.get("distance");
    if (d)
      add(
        "post-processing",
        rng.pick([`走路去${pl.name}大概要多久（按每小时5公里算）？`, `骑车去${pl.name}，按每小时15公里算要几分钟？`]),
        d,
        `ppl:d:${pl.name}`,
      );
    const c = pl.facts.get("closed");
    if (c) add("post-processing", `${pl.name}一周开几天？`, c, `ppl:c:${pl.name}`);
  }
  for (const ev of b.events) {
    const c = ev.facts.get("cost");
    const h = ev.facts.get("headcount");
    if (c && h)
      add(
        "post-processing",
        rng.pick([`${ev.name}人均花了多少钱？`, `${ev.name}平摊下来每人多少钱？`]),
        [...c, ...h],
        `ppe:pp:${ev.name}`,
      );
    const d = ev.facts.get("date");
    if (d)
      add(
        "post-processing",
        rng.pick([`${ev.name}是星期几？`, `${ev.name}到今年年底过去多少天了？`, `${ev.name}是在今年第几个季度？`]),
        d,
        `ppe:d:${ev.name}`,
      );
    const du = ev.facts.get("duration");
    if (du && ev.dur.kind === "span") add("post-processing", `${ev.name}一共进行了几个小时？`, du, `ppe:du:${ev.name}`);
  }
  return out;
}

/** Words of which one must be in the messages telling `p`'s `attr` (version 1 = the current value); null where no single word is sure. */
function valueWords(b: LogBuilder, p: Person, attr: PAttr, sub: number, version: 0 | 1): string[] | null {
  switch (attr) {
    case "city":
      return [version === 1 ? b.cityOf(p) : p.city];
    case "hometown":
      return [p.hometown.c];
    case "work": {
      const w = version === 1 ? b.workOf(p) : p.work;
      return sub % 2 === 0 ? [w.job] : [w.emp];
    }
    case "hobby":
      return [p.hobby.n, p.hobby.v];
    case "food":
      return [p.food];
    case "pet":
      return p.pet ? [p.pet.kind, p.pet.name] : ["没", "不养", "过敏"];
    case "car": {
      const c = version === 1 ? b.carOf(p) : p.car;
      return c ? [c] : ["没"];
    }
    case "phone": {
      const ph = version === 1 ? b.phoneOf(p) : p.phone;
      return ph === "苹果" ? ["苹果", "iPhone", "果粉"] : [ph];
    }
    case "spouse":
      return p.spouse ? [p.spouse] : null;
    case "birthday":
      return [`${p.bday.m}`, cn(p.bday.m)];
    case "kids":
      return null;
    default:
      return null;
  }
}

/** Descriptions that single a person out among everyone (no group named). */
function descsForAll(b: LogBuilder, p: Person): { attr: PAttr; phrase: string; fact: PFact }[] {
  const others = b.people.filter((q) => q !== p);
  const res: { attr: PAttr; phrase: string; fact: PFact }[] = [];
  const add = (attr: PAttr, phrase: string, distinct: (q: Person) => boolean) => {
    const f = b.cur(p, attr);
    if (f && others.every(distinct)) res.push({ attr, phrase, fact: f });
  };
  const w = b.workOf(p);
  add("work", `做${w.job}的`, (q) => b.workOf(q).job !== w.job);
  add("work", `在${w.emp}上班的`, (q) => b.workOf(q).emp !== w.emp);
  if (p.pet) {
    const pet = p.pet;
    add("pet", `养${pet.kind}的`, (q) => q.pet?.kind !== pet.kind);
    add("pet", `家里${pet.species}叫${pet.name}的`, () => true);
  }
  if (p.spouse) add("spouse", p.gender === "F" ? `老公叫${p.spouse}的` : `老婆叫${p.spouse}的`, () => true);
  const car = b.carOf(p);
  if (car) add("car", `开${car}的`, (q) => b.carOf(q) !== car);
  add("hobby", `爱${p.hobby.n}的`, (q) => q.hobby.n !== p.hobby.n);
  return res;
}

const WEATHER: [string, string[]][] = [
  ["又下雨了", ["出门得带伞", "鞋子都湿透了", "晾的衣服又白晾了", "真不想出门"]],
  ["闷得要命", ["空调开了一天", "一动就出汗"]],
  ["太阳特别毒", ["出门五分钟就晒蔫了", "防晒霜都不管用"]],
  ["降温了，风好大", ["骑车上班差点迟到", "得把厚外套翻出来"]],
  ["雾霾挺重", ["出门戴了口罩", "窗户都不敢开"]],
  ["阴沉沉的", ["心情跟着一般", "适合睡觉"]],
  ["热得像蒸笼", ["空调开了一天", "电费又要涨了"]],
  ["下了场暴雨", ["鞋子都湿透了", "小区门口积水了"]],
  ["飘了点小雪", ["路上有点滑", "楼下小孩在堆雪人"]],
  ["冷得手都伸不出来", ["在被窝里不想起", "暖气还没来"]],
  ["天气还不错", ["适合出去走走", "阳光挺舒服"]],
  ["突然刮起大风", ["阳台的衣服吹掉了一件", "伞都吹翻了"]],
  ["湿度高得离谱", ["晾的衣服又白晾了", "墙上都返潮了"]],
];
const MOODS: [string[], string[]][] = [
  [
    ["心情不错", "挺开心的", "精神还行", "状态挺好"],
    ["项目终于上线了", "被夸了一句", "发了奖金", "收到一个好消息", "睡了个好觉"],
  ],
  [
    ["有点累", "烦死了", "莫名其妙有点低落", "特别想放假", "困得睁不开眼", "有点焦虑", "脑子转不动"],
    ["可能是没睡好", "早上咖啡洒了一身", "方案又被打回来了", "地铁坐过站了", "不知道为什么", "事情太多了"],
  ],
];
const SHOPPING: [string, string[]][] = [
  ["刚去超市买了点菜", ["排队排了好久", "菜价又涨了"]],
  ["晚上去便利店买了瓶水", ["顺手拿了包薯片"]],
  ["在网上买了一箱牛奶", ["正好赶上满减", "估计后天到"]],
  ["西红柿又涨价了", ["一斤快十块了"]],
  ["囤了两袋大米", ["够吃一阵子了"]],
  ["买了点水果，草莓挺甜", ["就是有点贵"]],
  ["下单了一箱纸巾", ["感觉又乱花钱了", "家里快用完了"]],
  ["买的酸奶快过期了", ["得赶紧喝掉"]],
  ["去药店买了点感冒药", ["备着总没错"]],
  ["楼下水果店在打折", ["买了一大袋"]],
  ["凑满减买了一堆零食", ["感觉又乱花钱了"]],
  ["买了N斤橘子", ["挺甜的", "吃不完了"]],
];

const NOISE = [
  "今天加班好累",
  "外面还在下雨",
  "刚开完一个超长的会",
  "地铁上挤得要死",
  "中午吃太多了有点困",
  "头有点疼",
  "快递又被放错柜子了",
  "明天还得早起",
  "刚跑完步一身汗",
  "楼上又在装修",
  "咖啡洒键盘上了",
  "周末过得太快了",
  "最近老是失眠",
  "同事在旁边吃螺蛳粉",
  "电梯又坏了",
  "刚刚差点坐过站",
  "今天发工资了",
  "空调遥控器找不到了",
  "隔壁小孩在练琴",
  "有点想吃烧烤",
  "手机快没电了",
  "刚洗完澡",
  "晚上的会议又改时间了",
  "这周好漫长",
  "窗外的鸟叫了一早上",
  "刚把衣服晾上",
  "今天忘带伞了",
  "下午犯困得不行",
];

function noisyWrap(rng: Rng, base: Cand, seen: Set<string>): Cand {
  for (let tries = 0; ; tries++) {
    const parts = rng.sample(NOISE, rng.int(1, 3));
    const chat = parts
      .map((s, i) => s + (i === parts.length - 1 ? rng.pick(["。", "！", "，"]) : rng.pick(["，", "。"])))
      .join("");
    if (!seen.has(chat) || tries > 10) {
      const glue = chat.endsWith("，")
        ? ""
        : rng.pick(["对了，", "话说，", "顺便问一下，", "哦还有，", "突然想起来，", "问你个事，", ""]);
      return { cat: "noisy", text: chat + glue + base.text, ev: base.ev, key: `n:${base.key}` };
    }
  }
}

// ───────────────────────────── one conversation

interface OutMessage {
  id: string;
  role: "user";
  content: string;
}
interface OutQuery {
  id: string;
  conversationId: string;
  question: string;
  evidence: string[];
  category: Cat;
}

function buildConversation(
  convId: string,
  rng: Rng,
  circleSize: number,
  tellProb: number,
): { messages: OutMessage[]; queries: OutQuery[]; stats: Record<string, unknown> } {
  const b = new LogBuilder(rng, circleSize, tellProb);
  b.buildCircle();
  b.buildThings();
  const tasks = b.plan();
  const blocks = b.renderAll(tasks);
  const factMsgs = blocks.reduce((s, bl) => s + bl.msgs.length, 0);
  // chatter: 45–60 % of the log, the log 1,000–2,400 messages
  const lo = Math.max(1000, Math.ceil(factMsgs / 0.55));
  const hi = Math.min(2400, Math.floor(factMsgs / 0.4));
  const total = lo <= hi ? rng.int(lo, hi) : Math.max(1000, Math.ceil(factMsgs / 0.55));
  const fillerCount = total - factMsgs;
  const slots: { key: number; msgs: Draft[] | null }[] = blocks.map((bl) => ({ key: bl.key, msgs: bl.msgs }));
  for (let i = 0; i < fillerCount; i++) slots.push({ key: rng.next(), msgs: null });
  slots.sort((x, y) => x.key - y.key);
  const drafts: Draft[] = [];
  for (const s of slots) {
    if (s.msgs) drafts.push(...s.msgs);
    else drafts.push({ text: b.filler(s.key), id: "", kind: "filler" });
  }
  drafts.forEach((d, i) => {
    d.id = String(i + 1);
  });
  checkLog(b, drafts);

  // questions
  const nQueries = Math.round(Math.min(550, Math.max(350, 350 + ((drafts.length - 1000) / 1400) * 200)));
  const pools = candidates(b);
  const quota: Record<Cat, number> = {
    simple: 0,
    conditional: 0,
    comparative: 0,
    aggregative: 0,
    "post-processing": 0,
    noisy: 0,
  };
  for (const c of CATS) quota[c] = Math.round(nQueries * SHARES[c]);
  const chosen: Cand[] = [];
  const usedKeys = new Set<string>();
  const usedText = new Set<string>();
  const take = (c: Cat, n: number): number => {
    let got = 0;
    for (const cand of rng.shuffle(pools[c])) {
      if (got >= n) break;
      if (usedKeys.has(cand.key) || usedText.has(cand.text)) continue;
      usedKeys.add(cand.key);
      usedText.add(cand.text);
      chosen.push(cand);
      got++;
    }
    return got;
  };
  let short = 0;
  for (const c of ["conditional", "comparative", "aggregative", "post-processing"] as Cat[])
    short += quota[c] - take(c, quota[c]);
  // noisy: simple and conditional questions not asked plainly, inside chatter
  const logTexts = new Set(drafts.map((d) => d.text));
  const baseForNoise = rng.shuffle([...pools.simple, ...pools.conditional]).filter((c) => !usedKeys.has(c.key));
  let noisy = 0;
  for (const base of baseForNoise) {
    if (noisy >= quota.noisy) break;
    const wrapped = noisyWrap(rng, base, logTexts);
    if (usedText.has(wrapped.text)) continue;
    usedKeys.add(base.key);
    usedText.add(wrapped.text);
    chosen.push(wrapped);
    noisy++;
  }
  short += quota.noisy - noisy;
  take("simple", quota.simple + short);
  for (const c of CATS) if (chosen.length < nQueries) take(c, nQueries - chosen.length);

  const queries: OutQuery[] = rng.shuffle(chosen).map((c, i) => ({
    id: `${convId}/q${i + 1}`,
    conversationId: convId,
    question: c.text,
    evidence: uniq(c.ev.map((d) => d.id)).sort((x, y) => Number(x) - Number(y)),
    category: c.cat,
  }));
  for (const q of queries)
    if (q.evidence.length === 0 || q.evidence.some((id) => id === "")) throw new Error(`${q.id}: bad evidence`);
  checkQuestions(b, chosen);

  const perCat: Record<string, number> = {};
  for (const q of queries) perCat[q.category] = (perCat[q.category] ?? 0) + 1;
  const filler = drafts.filter((d) => d.kind === "filler").length;
  const told: Record<string, number> = {};
  const factsPerMsg = new Map<Draft, number>();
  for (const p of b.people)
    for (const list of p.facts.values())
      for (const f of list) {
        const k = f.msgs.length > 1 ? "split" : f.ref.kind;
        told[k] = (told[k] ?? 0) + 1;
        for (const d of f.msgs) factsPerMsg.set(d, (factsPerMsg.get(d) ?? 0) + 1);
      }
  told.messagesWithSeveralFacts = [...factsPerMsg.values()].filter((n) => n > 1).length;
  return {
    messages: drafts.map((d) => ({ id: d.id, role: "user", content: d.text })),
    queries,
    stats: {
      id: convId,
      messages: drafts.length,
      fillerMessages: filler,
      fillerShare: Math.round((filler / drafts.length) * 1000) / 1000,
      people: b.people.length,
      items: b.items.length,
      places: b.places.length,
      events: b.events.length,
      changedFacts: b.updates,
      personFactsBy: told,
      userCity: b.userCity,
      queries: perCat,
    },
  };
}

/** Self-checks on the log: each fact's value is in its messages, each reference in its message, each pronoun right after its antecedent. */
function checkLog(b: LogBuilder, drafts: Draft[]): void {
  const pos = new Map<Draft, number>();
  drafts.forEach((d, i) => pos.set(d, i));
  const fail = (msg: string) => {
    throw new Error(`self-check: ${msg}`);
  };
  const checkRef = (ref: Ref, p: Person) => {
    const t = ref.msg.text;
    if (ref.kind === "name" && !t.includes(p.name)) fail(`name ref without the name: ${t}`);
    if (ref.kind === "rel" && !t.includes(p.rel.my)) fail(`relation ref without the relation: ${t}`);
    if (ref.kind === "relName" && !(t.includes(p.name) && t.includes(p.rel.label))) fail(`relName ref: ${t}`);
    if (ref.kind === "desc" && !t.includes("我那个")) fail(`desc ref: ${t}`);
    if (ref.kind === "pronoun" || ref.kind === "relPron") {
      if (!ref.ante) fail("pronoun without antecedent");
      else {
        if ((pos.get(ref.msg) ?? -9) - (pos.get(ref.ante.msg) ?? -99) !== 1)
          fail(`pronoun not right after its antecedent: ${t}`);
        if (!t.includes(pron(p))) fail(`pronoun message without ${pron(p)}: ${t}`);
        checkRef(ref.ante, p);
      }
    }
  };
  for (const p of b.people) {
    if (!p.introEv.length) fail(`${p.name} never introduced`);
    const introText = p.introEv.map((d) => d.text).join("");
    if (!introText.includes(p.name) || !introText.includes(p.rel.label)) fail(`intro of ${p.name}: ${introText}`);
    for (const [a, list] of p.facts) {
      for (const f of list) {
        checkRef(f.ref, p);
        const text = f.msgs.map((d) => d.text).join("");
        const want: string[] = [];
        if (a === "city") want.push(f.version === 0 ? p.city : (p.upd.city ?? ""));
        if (a === "hometown") want.push(p.hometown.c);
        if (a === "work") want.push((f.version === 0 ? p.work : (p.upd.work ?? p.work)).job);
        if (a === "pet" && p.pet) want.push(p.pet.name, p.pet.kind);
        if (a === "car") {
          const c = f.version === 0 ? p.car : (p.upd.car ?? null);
          if (c) want.push(c);
        }
        if (a === "phone") {
          const ph = f.version === 0 ? p.phone : (p.upd.phone ?? "");
          if (ph !== "苹果") want.push(ph);
        }
        if (a === "spouse") want.push(p.spouse ?? "?");
        for (const w of want) if (!text.includes(w)) fail(`${p.name}.${a} "${w}" not in: ${text}`);
        if (f.msgs.some((d) => !pos.has(d))) fail(`fact message not in the log: ${text}`);
        for (let i = 1; i < f.msgs.length; i++) {
          const prev = f.msgs[i - 1];
          const curr = f.msgs[i];
          if (prev && curr && (pos.get(curr) ?? 0) - (pos.get(prev) ?? 0) !== 1)
            fail(`split fact not consecutive: ${text}`);
        }
      }
    }
  }
  for (const it of b.items) {
    for (const [a, msgs] of it.facts) {
      const text = msgs.map((d) => d.text).join("");
      if (a === "brand" && !text.includes(it.brand)) fail(`brand not in ${text}`);
      if (a === "where" && !text.includes(it.where)) fail(`where not in ${text}`);
      if (a === "colour" && !text.includes(it.colour)) fail(`colour not in ${text}`);
    }
  }
  for (const ev of b.events) {
    for (const [a, msgs] of ev.facts) {
      const text = msgs.map((d) => d.text).join("");
      if (!text.includes(ev.name)) fail(`event name not in ${text}`);
      if (a === "venue" && !text.includes(ev.venue)) fail(`venue not in ${text}`);
      if (a === "attendees") for (const p of ev.attendees) if (!text.includes(p.name)) fail(`attendee not in ${text}`);
    }
  }
  for (const pl of b.places)
    for (const msgs of pl.facts.values())
      for (const d of msgs) if (!d.text.includes(pl.name)) fail(`place name not in ${d.text}`);
}

/** Self-checks on the questions: the asked value is in the evidence, and so is every name and relation the question uses. */
function checkQuestions(b: LogBuilder, chosen: Cand[]): void {
  for (const c of chosen) {
    const text = c.ev.map((d) => d.text).join(" ");
    for (const words of c.need ?? []) {
      if (!words.some((w) => text.includes(w)))
        throw new Error(`self-check: "${c.text}" needs one of ${words.join("/")} in: ${text}`);
    }
    for (const p of b.people) {
      if (c.text.includes(p.name) && !text.includes(p.name))
        throw new Error(`self-check: "${c.text}" names ${p.name}, not in: ${text}`);
      if (p.rel.unique && c.text.includes(p.rel.my) && !text.includes(p.rel.my))
        throw new Error(`self-check: "${c.text}" says ${p.rel.my}, not in: ${text}`);
    }
    for (const pl of b.places)
      if (c.text.includes(pl.name) && !text.includes(pl.name))
        throw new Error(`self-check: "${c.text}": ${pl.name} not in: ${text}`);
    for (const ev of b.events)
      if (c.text.includes(ev.name) && !text.includes(ev.name))
        throw new Error(`self-check: "${c.text}": ${ev.name} not in: ${text}`);
  }
}

// ───────────────────────────── main

function main(): void {
  const seedText = argValue("seed") ?? "7";
  const seed = Number(seedText);
  if (!Number.isInteger(seed)) throw new Error(`--seed takes an integer, got ${seedText}`);
  const name = argValue("name") ?? "synth-assistant-zh";
  const root = new Rng(seed);
  const sizes = root.shuffle([26, 31, 36, 40, 44]).map((s) => Math.min(45, Math.max(25, s + root.int(-1, 1))));
  const conversations: { id: string; messages: OutMessage[] }[] = [];
  const queries: OutQuery[] = [];
  const stats: Record<string, unknown>[] = [];
  for (let i = 0; i < CONVERSATIONS; i++) {
    const id = `u${i + 1}`;
    const rng = new Rng((Math.imul(seed, 2654435761) ^ Math.imul(i + 1, 40503)) >>> 0);
    const c = buildConversation(id, rng, sizes[i] ?? 30, 0.8 + root.next() * 0.15);
    conversations.push({ id, messages: c.messages });
    queries.push(...c.queries);
    stats.push(c.stats);
  }
  const perCat: Record<string, number> = {};
  for (const c of CATS) perCat[c] = queries.filter((q) => q.category === c).length;
  const dataset = {
    format: "memory-eval/v1",
    name,
    conversations,
    queries,
    notes: {
      generator: "bench/synth-assistant-zh.ts",
      seed,
      year: YEAR,
      now: NOW,
      about:
        "Made-up Chinese log: one user tells a personal assistant about their circle, things, places and events, between chatter; written without reading the search code.",
      evidence:
        "Every message holding a fact the question needs, plus the message(s) tying a pronoun, relation or description to the person; for a changed fact the latest message (both when the question asks about the change). Group counts and lists cite the members holding the asked value.",
      messages: conversations.reduce((s, c) => s + c.messages.length, 0),
      queries: queries.length,
      queriesPerCategory: perCat,
      conversations: stats,
    },
  };
  const file = path.join("bench", "data", `${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(dataset));
  console.log(
    `${file}: ${conversations.length} conversations, messages ${conversations.map((c) => c.messages.length).join("/")}, ` +
      `${queries.length} queries (${CATS.map((c) => `${c} ${perCat[c] ?? 0}`).join(", ")})`,
  );
}

main();
