/*
 * A made-up Chinese life log, for diagnosing retrieval: one speaker tells an assistant short stories about the
 * people, things, events and places in their life (relatives, colleagues, neighbours, a landlord, a wedding, a
 * move, a fridge, the park next door…), interleaved with each other and with chit-chat into one haystack per
 * conversation, plus questions of six kinds (simple, conditional, comparative, aggregative, post-processing, noisy)
 * whose gold evidence is every message needed to answer them. All word lists and sentence templates were written
 * for this file; no dataset text. It was written without looking at the ranking code, as an independent check that
 * ranking changes generalize beyond our own generator: use it for diagnosis only, never to fit weights.
 *
 *   npx tsx bench/synth-life-zh.ts [--conversations 6] [--seed 101] [--name synth-life-zh]
 *
 * Evidence: the message(s) stating each needed fact; the line a 他/她/它 points back to; and, for a person, the
 * line that ties their name to their relation ("我舅舅王建国…") when the question names them one way and the fact
 * line the other, or when the question needs the relation (亲戚, 同事…) and the fact line does not give it.
 */
import { evalDatasetSchema, parseArgs, writeDataset, type EvalDataset, type EvalQuery } from "./lib/eval-format";
import { rng, type Rng } from "./load/corpus";

const T = (s: string) => s.split("|");
const W = (s: string) => s.trim().split(/\s+/);
const opt = (s?: string) => (s ? T(s) : undefined);
const rows = (s: string) => Array.from(s.trim().split("\n"), (l) => l.split("#"));
const fill = (t: string, vars: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? "");
function shuffle<X>(r: Rng, xs: readonly X[]): X[] {
  const keyed = xs.map((x) => [r.next(), x] as const);
  return keyed.sort((a, b) => a[0] - b[0]).map(([, x]) => x);
}
type Range = [number, number, number];
const range = (s = "0"): Range => {
  const [a = 0, b = a, c = 1] = s.split("-").map(Number);
  return [a, b, c];
};
const span = (r: Rng, [lo, hi, step]: Range) => lo + step * r.int(Math.floor((hi - lo) / step) + 1);

// ---- numbers, dates and amounts, written several ways --------------------------------------------------------
const DIG = "零一二三四五六七八九";
function zh(n: number): string {
  const lo = n % 10000;
  if (n >= 10000) return zh(Math.floor(n / 10000)) + "万" + (lo ? (lo < 1000 ? "零" : "") + zh(lo) : "");
  const ds = [...String(n)].map(Number);
  const out = ds.map((d, i) => (d ? DIG[d]! + ["千", "百", "十", ""][4 - ds.length + i]! : "零")).join("");
  const s = out.replace(/零+/g, "零").replace(/(.)零$/, "$1");
  return s.startsWith("一十") ? s.slice(1) : s;
}
const liang = (s: string) => (s === "二" ? "两" : s.replace(/^二(?=[千百万])/, "两"));
const num = (r: Rng, n: number) => (r.chance(0.55) ? String(n) : zh(n));
const cnt = (r: Rng, n: number) => (r.chance(0.55) ? String(n) : liang(zh(n)));
function money(r: Rng, n: number): string {
  const o = [`${n}元`, `${n}块`, `${n}块钱`, `${liang(zh(n))}块`, `${liang(zh(n))}元`];
  if (n >= 10000 && n % 1000 === 0) o.push(`${n / 10000}万`, `${n / 10000}万块`);
  return r.pick(o);
}
function height(r: Rng, h: number): string {
  const rest = h - 100;
  const digits = rest % 10 === 0 ? DIG[rest / 10]! : `${DIG[Math.floor(rest / 10)]}${DIG[rest % 10]}`;
  return r.pick([`${h}厘米`, `${h}cm`, `一米${digits}`, `1米${rest % 10 === 0 ? rest / 10 : rest}`, `${zh(h)}公分`]);
}
function date(r: Rng, v: V): string {
  if (typeof v === "string") return v;
  const [m, d] = [Math.floor(v / 100), v % 100];
  return r.pick([`${m}月${d}号`, `${m}月${d}日`, `${zh(m)}月${zh(d)}号`, `${zh(m)}月${zh(d)}日`, `${m}.${d}`]);
}
function clock(r: Rng, h: number): string {
  const part = h < 11 ? "早上" : h < 13 ? "中午" : h < 18 ? "下午" : "晚上";
  const h12 = h > 12 ? h - 12 : h;
  return r.pick([`${part}${h12}点`, `${part}${zh(h12)}点`, `${h}点`, `${h}:00`]);
}
function distance(r: Rng, m: number): string {
  const o = m < 1000 ? [`${m}米`, `${zh(m)}米`] : [`${m / 1000}公里`, `${m}米`];
  if (m >= 1000 && m % 1000 === 0) o.push(`${liang(zh(m / 1000))}公里`);
  if (m >= 1000 && m % 1000 === 500) o.push(`${liang(zh(Math.floor(m / 1000)))}公里半`);
  return r.pick(o);
}
const MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function addDays(v: number, days: number): number {
  let [m, d] = [Math.floor(v / 100), (v % 100) + days];
  while (d > MONTH[m - 1]!) d -= MONTH[m++ - 1]!;
  return m * 100 + d;
}
const randDate = (r: Rng, maxMonth = 12) => (1 + r.int(maxMonth)) * 100 + 1 + r.int(28);

// ---- word lists (split on spaces) and phrasings (split on |) --------------------------------------------------
const LEX = new Map(
  rows(`
surnames#王 李 张 刘 陈 杨 黄 赵 周 吴 徐 孙 马 朱 胡 郭 何 林 罗 高 郑 梁 谢 宋 唐 许 韩 冯 邓 曹 彭 曾 肖 田 董 潘 袁 蔡 蒋 余
givenM#伟 磊 强 军 杰 涛 斌 超 浩 建国 志强 建华 俊杰 宇航 子豪 浩然 文博 明辉 国庆 海峰 立新 晓东 鹏飞 振华 家豪 嘉树 一鸣 天佑 思远 宏伟 德明 永刚 春生 少华 卫东 晨阳 景行 博文 泽宇 大勇 长青 学军 子轩 铭远 旭东 建平 云龙 正阳 书恒
givenF#芳 娜 敏 静 丽 婷 雪 燕 霞 丹 丽娟 晓燕 秀英 桂兰 雅琪 思雨 欣怡 梦洁 佳慧 婉清 诗涵 子涵 雨萱 玉梅 海燕 春梅 美玲 小红 淑珍 慧敏 若曦 晓彤 一诺 可欣 安琪 静怡 红霞 翠萍 雅楠 梓萌 心悦 亦菲 月华 素芬 巧玲 文静 晓丽 秋月
city#上海 北京 杭州 成都 武汉 南京 深圳 广州 西安 重庆 苏州 长沙 青岛 厦门 昆明 天津 大连 郑州 合肥 沈阳 宁波 济南
hometown#湖南衡阳 山东潍坊 河南洛阳 四川绵阳 江西赣州 安徽安庆 辽宁鞍山 浙江温州 福建泉州 广西桂林 湖北宜昌 河北保定 江苏盐城 山西大同 贵州遵义 云南大理 甘肃天水 吉林延边 内蒙古包头 黑龙江齐齐哈尔
school#复旦 武汉大学 中山大学 浙江大学 四川大学 南开大学 北师大 华中科技大学 同济大学 厦门大学 山东大学 郑州大学 湖南大学 西北大学 南京大学 东北大学 本地的师范学院 一所职业技术学院
kschool#实验小学 育才小学 第二小学 外国语小学 光明小学 师大附小
hobby#钓鱼 打羽毛球 爬山 下象棋 拍照 弹吉他 游泳 跑步 做烘焙 练书法 骑车 打篮球 跳舞 养花 玩桌游 打乒乓球 画画 唱歌
khobby#画画 游泳 弹钢琴 跳绳 搭乐高 踢足球 下围棋 轮滑 看绘本
food#火锅 红烧肉 小龙虾 饺子 螺蛳粉 寿司 烤鸭 酸菜鱼 肠粉 煎饼果子 羊肉串 麻辣烫 糖醋排骨 牛肉面 披萨 烧鹅 锅包肉 臭豆腐
pet#金毛:狗 柯基:狗 泰迪:狗 柴犬:狗 哈士奇:狗 边牧:狗 布偶猫:猫 橘猫:猫 英短:猫 暹罗猫:猫 仓鼠: 鹦鹉: 乌龟: 兔子:
petName#豆豆 旺财 年糕 可乐 布丁 球球 奶茶 毛毛 花卷 土豆 雪球 大黄 咪咪 小黑 芝麻 团子
car#比亚迪 特斯拉 蔚来 理想 小鹏 大众 丰田 本田 宝马 奥迪 奔驰 别克 吉利 长城 五菱 马自达
nev#比亚迪 特斯拉 蔚来 理想 小鹏
phone#苹果 华为 小米 OPPO vivo 荣耀 三星 一加
job#软件工程师:工程师:腾讯,字节跳动,星云软件 土木工程师:工程师:中建三局,城建集团 电气工程师:工程师:国家电网,华为 小学老师:老师:实验小学,育英小学 中学老师:老师:市第一中学,外国语学校 大学老师:老师:省师范大学,理工大学 护士::市人民医院,妇幼保健院 内科医生::市人民医院,中医院 会计::信达会计师事务所,招商银行 银行柜员::工商银行,建设银行 销售::链家,宏达汽车4S店 厨师::海底捞,粤香楼 快递员::顺丰,京东物流 外卖骑手::美团,饿了么 律师::金诚律师事务所,大成律师事务所 设计师::蓝鲸广告,小米 公务员::区税务局,市规划局 警察::城南派出所,交警大队 记者::都市晚报,市电视台 电工::国家电网,绿城物业 理发师::剪艺坊,发现造型 产品经理::阿里巴巴,美团,网易 公交司机::公交公司,旅游集团 药剂师::老百姓大药房,市人民医院 人事专员::华为,博世
where#京东 淘宝 拼多多 官网 专卖店 商场 闲鱼 免税店 直播间 宜家
colour#黑色 白色 银色 灰色 蓝色 红色 粉色 绿色 金色 米色
placeName#银杏 滨江 望湖 青石 云栖 翠竹 晨光 南山 东坡 绿洲 半岛 长青 桂花 枫林 月湖 老街
fuzzyBirthday#农历八月十五 大年初一 元宵节那天
fuzzyBought#去年双十一 618的时候 春节前 上个月底
fuzzyEvent#上个月初 去年国庆 元旦前后 清明节那天 上周六 五一假期 中秋节前一天 上个月底
groups#亲戚:亲戚 家人:家里人 同事:同事 同学:同学 朋友:朋友 邻居:邻居
itemGroups#电子产品:电子产品|数码产品 家电:家电|电器 家具:家具 衣物鞋包:衣服鞋包|穿戴用品 交通工具:代步工具|交通工具 乐器:乐器
time#今天 早上 中午 晚上 这两天 昨天 刚才 下午
weather#好冷 下了一整天雨 太阳特别毒 风大得吓人 闷得喘不过气 又是雾霾 降温了，得穿秋裤 天气还挺舒服 热得不想动 下雪了 湿漉漉的，衣服都晾不干
mood#有点累 心情还不错 烦得很 有点焦虑 莫名开心 一点都不想动 困得睁不开眼 有点想家 特别想睡觉 过得还挺充实 有点emo
meal#一碗牛肉粉 煎饼 外卖的黄焖鸡 食堂的土豆丝 一份沙拉 两个包子 麻辣香锅 蛋炒饭 一碗馄饨 楼下的盖浇饭 泡面 一大盘水果 凉皮
work#老板又改需求了 开了一下午的会 周报还没写完 今天加班到十点多 项目下周上线，压力好大 今天效率特别低 被客户催了好几次 明天要汇报，有点紧张 邮件怎么都回不完 工作群消息一直响 报销单又被退回来了
misc#地铁上人挤人 刚看完一部电影 最近在追一部剧 打算早点睡 周末还没想好干嘛 快递还没到 手机快没电了 刚跑完步回来 楼上又在敲墙 想出去走走 在听歌 把房间收拾了一遍 又失眠了 减肥计划又失败了
short#嗯嗯 好的 哈哈哈 谢谢你 晚安 在吗 你说得对 算了不说了 好吧 早 今天就聊到这`).map(([k = "", v = ""]) => [k, W(v)]),
);
const lex = (k: string) => LEX.get(k)!;
const PHRASE = new Map(
  rows(`
end#。|。|。|。|！||~|。
chitEnd#。|。|！|，你说呢？|……|，哈哈。|。唉。|。
sentenceEnd#。|。|！|，唉。|，真是的。
shortEnd#。|！|~|
join#，|，而且|，另外|；|，还有
lead#说到{s}|{s}啊|还有{s}|再说说{s}|对了，{s}|{s}这个人吧|提一下{s}
leadThing#说到{s}|{s}啊|还有{s}|再说说{s}|对了，{s}|提一下{s}
leadEnd#。|，|……|：
noiseJoin#对了，|话说，|问你个事，|突然想起来，|哦对，||问一下，
introU#跟你说说{my}{n}吧|{n}是{my}|{my}叫{n}|{my}{n}，之前好像没跟你提过|说到{my}{n}，{ta}这人挺有意思|介绍一下{my}，{ta}叫{n}
introS#我有个{label}叫{n}|{n}是{my}|跟你说说{my}{n}吧|{my}{n}，之前好像没跟你提过|认识{n}挺多年了，{ta}是{my}
introT#说说{s}吧|聊聊{s}|{s}的事还没跟你讲过|跟你讲讲{s}
itemRef#我的{n}|那{mw}{n}|{n}|我那{mw}{n}|我买的{n}
homeRef#我的{n}|那{mw}{n}|{n}|我那{mw}{n}|我买的{n}|家里的{n}
kids0#{s}还没有孩子|{s}家是丁克，没要孩子|{s}暂时没打算要孩子
cond.g#我那个{d}{G}|{d}那个{G}|我{G}里{d}那位
cond.all#我认识的人里{d}那位|{d}那个人
agg.g#我{G}里有几个{d}？|我有几个{G}是{d}？|{d}{G}都有谁？|我的{G}当中，谁{dv}？|{G}里面{dv}的有几个？
agg.all#我认识的人里有几个{d}？|我认识的人当中谁{dv}？|{d}人有哪些？|我身边{dv}的一共几位？
agg.members#我那几个{G}|我的{G}们|我那些{G}
agg.tail#？|？都列一下。|，分别说说？
agg.brand#我买过哪些{v}的东西？|我有几样{v}的产品？|{v}家的东西我买了哪些？|我家里有几件{v}的？
agg.where#我在{v}买过哪些东西？|哪些东西是在{v}买的？|我从{v}买了几样东西？
agg.colour#我有哪些{v}的东西？|我买的东西里哪些是{v}的？|{v}的东西我有几样？
agg.gbrand#我的{G}都是什么牌子？|我家{G}分别是哪个牌子的？|我买的{G}各是什么品牌？
agg.gwhere#我的{G}都是在哪儿买的？|我买的{G}分别从哪入手的？
agg.gprice#我买{G}一共花了多少钱？|我在{G}上总共花了多少？|我的{G}加起来多少钱？
agg.cost#{l}一共花了多少钱？|{l}加起来花了多少？
agg.people#{l}加起来一共多少人？|{l}总共来了多少人？
agg.open#{l}分别几点开门？|{l}各自几点开？
agg.close#{l}分别几点关门？|{l}都开到几点？
agg.dist#{l}离我家各有多远？|{l}分别离家多远？
post.age2#{a}比{b}大几岁？|{a}和{b}相差几岁？|{b}比{a}小几岁？|{a}和{b}年龄差多少？
post.age#{s}明年多大？|再过{k}年{s}多少岁？|{s}{k}年前几岁？|{s}明年该几岁了？
post.height#{a}比{b}高多少？|{a}和{b}身高差多少？|{b}比{a}矮几厘米？
post.kids#{a}和{b}一共有几个孩子？|{a}跟{b}家加起来几个娃？
post.kgrade#{s}明年上几年级？|{s}明年该读几年级了？|过了暑假{s}就上几年级？
post.kidGrade#{s}的孩子明年上几年级？|{s}家{kid}明年读几年级？
post.yearsAt#{s}再干几年就在单位满十年了？|{s}还差几年在现单位满十年？
post.price#{a}比{b}贵多少？|{a}和{b}一共花了多少钱？|{a}和{b}加起来多少钱？|{b}比{a}便宜多少？
post.table#{s}平均一桌多少钱？|{s}每桌大概花了多少？|{s}一桌合多少钱？
post.per#{s}人均花了多少？|{s}平摊下来每人多少钱？|{s}每个人出了多少钱？
post.days#{s}前后一共几天？|{s}总共持续了多少天？|{s}一共花了多少天？
post.hours#{s}一天营业几个小时？|{s}每天开多长时间？|{s}一天开几个钟头？
post.dist#{a}比{b}远多少？|从家到{a}比到{b}多走多远？`).map(([k = "", v = ""]) => [k, T(v)]),
);
const phrase = (r: Rng, k: string, vars: Record<string, string> = {}) => fill(r.pick(PHRASE.get(k)!), vars);
const pairs = (k: string) => new Map(lex(k).map((x) => x.split(":") as [string, string]));
const PETS = pairs("pet");
const GROUP_WORD = pairs("groups");
const ITEM_GROUPS = pairs("itemGroups");
const JOBS = lex("job").map((j) => {
  const [job = "", cat = "", orgs = ""] = j.split(":");
  return { job, cat, orgs: orgs.split(",") };
});

// label my-form group gender stage age-lo age-hi flags (u: the only one so related, w: may have a spouse told,
// k: may have children told, j: no job told, x: shares the speaker's surname; s+N: the speaker's age plus N)
const RELS: Rel[] = rows(`
舅舅 我舅舅 亲戚 m adult 42 66 uk#舅妈 我舅妈 亲戚 f adult 40 64 uk#姑姑 我姑姑 亲戚 f adult 40 66 ukx
姑父 我姑父 亲戚 m adult 42 68 uk#小姨 我小姨 亲戚 f adult 36 52 uk#姨夫 我姨夫 亲戚 m adult 38 56 uk#大伯 我大伯 亲戚 m adult 50 70 ukx
叔叔 我叔叔 亲戚 m adult 40 60 ukx#婶婶 我婶婶 亲戚 f adult 38 60 uk#表哥 我表哥 亲戚 m adult s+1 s+9 uwk#表姐 我表姐 亲戚 f adult s+1 s+9 uwk
表弟 我表弟 亲戚 m adult s-9 s-1 uwk#表妹 我表妹 亲戚 f adult s-9 s-1 uwk#堂哥 我堂哥 亲戚 m adult s+1 s+10 uwkx#堂姐 我堂姐 亲戚 f adult s+1 s+10 uwkx
堂弟 我堂弟 亲戚 m adult s-9 s-1 uwkx#堂妹 我堂妹 亲戚 f adult s-9 s-1 uwkx#姐夫 我姐夫 亲戚 m adult s+2 s+12 uk#嫂子 我嫂子 亲戚 f adult s+1 s+10 uk
爸 我爸 家人 m adult s+24 s+32 ux#妈 我妈 家人 f adult s+22 s+30 u#哥 我哥 家人 m adult s+1 s+8 ukx#姐 我姐 家人 f adult s+1 s+8 ukx
弟弟 我弟弟 家人 m adult s-8 s-1 uwkx#妹妹 我妹妹 家人 f adult s-8 s-1 uwkx#老婆 我老婆 家人 f adult s-4 s+1 u#老公 我老公 家人 m adult s-1 s+4 u
女儿 我女儿 家人 f kid 6 11 ux#儿子 我儿子 家人 m kid 6 11 ux#外婆 我外婆 家人 f old 72 92 u#外公 我外公 家人 m old 74 93 u#奶奶 我奶奶 家人 f old 72 92 u
爷爷 我爷爷 家人 m old 74 94 ux#房东 我房东 其他 x adult 38 68 uwk#牙医 我的牙医 其他 x adult 30 60 uwkj#家庭医生 我的家庭医生 其他 x adult 32 60 uwkj
健身教练 我的健身教练 其他 x adult 23 38 uwkj#领导 我领导 同事 x adult 35 55 uwk#师傅 我师傅 同事 x adult 40 58 uwk#发小 我发小 朋友 x adult s-1 s+1 uwk
闺蜜 我闺蜜 朋友 f adult s-2 s+2 uwk#室友 我大学室友 同学 x adult s-1 s+1 uwk#班主任 我高中班主任 其他 x adult s+15 s+30 uwkj
对门邻居 我对门邻居 邻居 x adult 28 70 uwk#楼上邻居 我楼上邻居 邻居 x adult 28 70 uwk#同事 我同事 同事 x adult s-8 s+12 wk
朋友 我朋友 朋友 x adult s-5 s+5 wk#大学同学 我大学同学 同学 x adult s-1 s+1 wk#高中同学 我高中同学 同学 x adult s-1 s+1 wk
邻居 我邻居 邻居 x adult 25 75 wk#客户 我的客户 其他 x adult 28 60 wk`)
  .flat()
  .map((line) => {
    const [label = "", my = "", group = "", g = "", stage = "", lo = "", hi = "", flags = ""] = W(line);
    return { label, my, group, g, stage: stage as Stage, lo, hi, flags };
  });
const bound = (s: string, self: number) => (s.startsWith("s") ? self + Number(s.slice(1)) : Number(s));

// category # names # measure word # group # brands # price range
const ITEMS: ItemDef[] = rows(`
手机#手机#部#电子产品#苹果|华为|小米|荣耀|OPPO#1500-9000-100
耳机#耳机|蓝牙耳机#副#电子产品#苹果|索尼|华为|漫步者#199-2999-10
笔记本电脑#笔记本电脑|笔记本|电脑#台#电子产品#苹果|联想|华为|戴尔|华硕#3500-16000-100
平板#平板|平板电脑#台#电子产品#苹果|华为|小米|三星#1200-8000-100
手表#手表|智能手表#块#电子产品#苹果|华为|小米|卡西欧#399-5000-10
相机#相机|微单#台#电子产品#索尼|佳能|尼康|富士#3000-18000-100
电视#电视|电视机#台#家电#小米|海信|TCL|索尼#1800-12000-100
冰箱#冰箱#台#家电#海尔|美的|西门子|容声#1800-12000-100
洗衣机#洗衣机#台#家电#海尔|小天鹅|西门子|美的#1200-6000-100
空调#空调#台#家电#格力|美的|海尔|大金#2000-9000-100
扫地机器人#扫地机器人|扫地机#台#家电#石头|科沃斯|追觅|小米#999-5000-10
空气炸锅#空气炸锅#个#家电#美的|九阳|小熊|飞利浦#199-899-10
咖啡机#咖啡机#台#家电#德龙|飞利浦|小米#499-6000-10
吹风机#吹风机#个#家电#戴森|松下|小米#99-3500-10
吸尘器#吸尘器#台#家电#戴森|小米|美的#399-4500-10
沙发#沙发#张#家具#宜家|顾家|林氏#1500-15000-100
床垫#床垫#张#家具#慕思|喜临门|宜家#999-12000-100
书桌#书桌|桌子#张#家具#宜家|林氏|源氏木语#399-3000-10
跑鞋#跑鞋|跑步鞋#双#衣物鞋包#耐克|阿迪达斯|李宁|安踏#299-1500-10
羽绒服#羽绒服#件#衣物鞋包#波司登|优衣库|始祖鸟#399-6000-10
背包#背包|双肩包#个#衣物鞋包#新秀丽|小米|始祖鸟#99-2500-10
自行车#自行车|单车#辆#交通工具#捷安特|美利达|迪卡侬#800-8000-100
电动车#电动车|小电驴#辆#交通工具#雅迪|爱玛|九号|小牛#1999-6000-100
吉他#吉他#把#乐器#雅马哈|卡马|泰勒#600-9000-100
电子琴#电子琴#台#乐器#雅马哈|卡西欧#800-5000-100`).map(([, names = "", mw = "", group = "", brands = "", price]) => {
  return { names: T(names), mw, group, brands: T(brands), price: range(price) };
});

// type # refs # facts it may have # places # people # money (per person / per table / total) # unit # duration # extra
const EVENTS: EventDef[] = rows(`
婚礼#那场婚礼|那次婚礼|表姐的婚礼|去年参加的婚礼#date place people tables cost#希尔顿酒店|海边的草坪|老家的大酒店|一家农家乐|市中心的宴会厅|滨江的一家酒店#80-300#table:2800-6800-200#小时#3-5#
旅行#那次旅行|那趟旅行|上次出去玩|那次出游#date end place people cost#云南|三亚|西藏|日本|新疆|桂林|泰国|青海|内蒙古|冰岛#2-6#per:1500-8000-500#天#3-10#
搬家#搬家|那次搬家|上次搬家#date place cost people dur#阳光花园|锦绣江南|翠湖苑|春江名苑|幸福里小区|桂花园#2-8#cost:800-6000-100#天#1-3#
年会#公司年会|今年的年会|那次年会#date place people dur extra#万豪酒店|公司大礼堂|度假村的宴会厅|一家会展中心#60-600##小时#3-6#一个按摩仪|一张购物卡|一台投影仪|一个行李箱|一箱车厘子|一个保温杯|一台电饭煲|一个大红包
同学聚会#同学聚会|那次同学会|高中同学聚会#date place people cost#海底捞|一家粤菜馆|学校门口的老饭馆|江边的烧烤店|一家私房菜馆#6-30#per:80-400-20#小时#3-5#
演唱会#那场演唱会|演唱会|那次看的演出#date place cost dur extra#体育中心|奥体中心|大剧院|一个livehouse#2#cost:380-3000-10#小时#2-4#夜航乐队|白鲸乐队|橙子乐队|南风乐队|山海乐队
学车#考驾照|学车|驾照考试#date place cost extra#城西考场|驾校自己的考场|郊区的考场#1#cost:3000-7000-100#天#1#2|3|4|5
装修#装修|新房装修|那次装修#date end cost extra##1#cost:50000-300000-1000#天#30-100#匠心装饰|美居装饰|本地一家小装修队|一家叫筑家的公司
露营#那次露营|周末露营|去露营那回#date end place people cost#山里的营地|水库边|郊野公园|海边的沙滩#3-10#per:100-600-50#天#2-3#
团建#那次团建|部门团建|公司团建#date place people cost dur#郊区的农庄|温泉度假村|一家密室逃脱店|山上的拓展基地#10-60#per:150-800-50#小时#4-10#
体检#年度体检|那次体检|今年的体检#date place cost dur#市一医院|体检中心|中医院#1#cost:300-2500-10#小时#2-4#
寿宴#外婆的寿宴|那场寿宴|寿宴#date place people tables cost#老家的饭店|一家酒楼|外婆家院子里#30-120#table:1800-3800-200#小时#2-4#`).map(
  ([k = "", refs = "", keys = "", places, people, money, unit = "", dur, extra]) => {
    const [how = "", amount] = (money || "none").split(":");
    const nums = { people: range(people), amount: range(amount), dur: range(dur) };
    return { k, refs: T(refs), keys: W(keys), places: opt(places) ?? [], how, unit, extra: opt(extra) ?? [], ...nums };
  },
);
// how an event type words a fact its own way: type.fact # told # asked
const EVENT_WORDING = new Map(
  rows(`
婚礼.people#{s}来了{v}位客人|{s}请了{v}个客人|{s}宾客一共{v}位|{s}到场的有{v}人#{s}来了多少客人？|{s}请了多少宾客？|{s}一共多少人参加？
旅行.place#{s}去的是{v}|{s}我们去了{v}|{s}的目的地是{v}|{s}去{v}玩了一圈#{s}去了哪儿？|{s}去的什么地方？|{s}的目的地是哪？
旅行.date#{s}是{v}出发的|{s}{v}动身|{s}从{v}开始#{s}哪天出发的？|{s}是几号走的？|{s}什么时候出发的？
旅行.end#{s}{v}回来的|{s}到{v}才回来|{s}是{v}返程的#{s}哪天回来的？|{s}什么时候返程的？|{s}几号回的家？
旅行.people#{s}一共{v}个人去|{s}我们{v}个人一起|{s}同行的一共{v}个人#{s}有几个人一起去？|{s}同行的有几个人？|{s}一共去了几个人？
搬家.place#{s}搬到了{v}|{s}以后新家在{v}|{s}最后选在了{v}#我搬到哪个小区了？|{s}搬去哪儿了？|{s}新家在哪个小区？
搬家.people#{s}来帮忙的有{v}个人|{s}找了{v}个人帮忙|{s}一共{v}个人来搭手#{s}有几个人来帮忙？|{s}找了多少人帮忙？
年会.extra#我在{s}上抽到了{v}|{s}我中了{v}|{s}抽奖我拿了{v}#我在{s}上抽中了什么？|{s}我中了什么奖？|{s}抽奖我抽到了啥？
演唱会.extra#{s}是{v}的|去看的是{v}的{s}|{s}的主角是{v}#{s}是哪个乐队的？|{s}看的是谁？|{s}是谁的演出？
演唱会.place#{s}在{v}|{s}的场地在{v}|{s}是在{v}开的#{s}在哪儿开的？|{s}的场地在哪？|{s}在什么地方？
演唱会.cost#{s}的票{v}|{s}门票花了{v}|{s}买票花了{v}#{s}的票多少钱？|{s}门票花了多少？|{s}票价是多少？
学车.date#{s}是{v}拿到的证|{s}{v}考完最后一科|{s}拿证那天是{v}#我哪天拿到驾照的？|{s}是什么时候考完的？|{s}哪天拿的证？
学车.place#{s}在{v}考的|{s}的考场是{v}#{s}在哪个考场考的？|{s}是在哪儿考的？
学车.cost#{s}学费交了{v}|{s}一共花了{v}|{s}报名花了{v}#{s}花了多少钱？|{s}学费多少？|{s}交了多少钱？
学车.extra#{s}科目二考了{v}次才过|{s}我的科二考了{v}次#我科目二考了几次？|{s}科目二考了几回才过？
装修.date#{s}是{v}开工的|{s}{v}动工|{s}从{v}开始#{s}是哪天开工的？|{s}什么时候动工的？
装修.end#{s}{v}完工|{s}到{v}才弄完|{s}{v}收尾#{s}哪天完工的？|{s}什么时候装完的？
装修.extra#{s}找的是{v}|{s}交给了{v}|{s}请的{v}#{s}找的哪家公司？|{s}是谁给做的？|{s}请的哪家？
体检.place#{s}在{v}做的|{s}去的{v}|{s}是在{v}#{s}在哪儿做的？|{s}去的哪家医院？|{s}在什么地方做的？`).map(
    ([k = "", say = "", ask = ""]) => [k, [T(say), T(ask)] as const],
  ),
);

// type # refs # name suffix # features # opens # closes # what a price is for # price
const PLACES: PlaceDef[] = rows(`
公园#小区旁边的公园|那个公园|家附近的公园#公园#有个很大的人工湖|有一条环湖跑道|养了很多鸽子|有一片樱花林|有个儿童乐园#5-7#21-23##
超市#楼下的超市|常去的那家超市|小区门口的超市#生活超市#二楼卖进口零食|有现做的寿司|生鲜区特别大|门口有自助寄存柜#7-9#21-23##
健身房#我办卡的健身房|那家健身房|公司旁边的健身房#健身#有个恒温泳池|私教特别多|有一面攀岩墙|器械区很大#6-9#21-23#年卡#1200-4800-100
咖啡馆#楼下的咖啡馆|常去的咖啡店|那家咖啡馆#咖啡#养了一只店猫|二楼有安静的自习区|窗边能看到江|周末晚上有人驻唱#7-10#18-22#一杯拿铁#18-38
面馆#公司附近的面馆|那家面馆|巷子里的面馆#面馆#老板是兰州人|牛肉面是招牌|汤是熬了一整夜的|只有六张桌子#6-10#14-21#一碗面#12-32
图书馆#区图书馆|家附近的图书馆|那个图书馆#图书馆#三楼有自习室|有很多老期刊|有个儿童阅览区|能借电子书#8-9#17-21##
菜市场#小区后面的菜市场|那个菜市场#农贸市场#早上的鱼特别新鲜|有家卖手工水饺的|最里面有个修鞋摊#5-7#12-19##
游泳馆#体育中心的游泳馆|那家游泳馆#游泳馆#有五十米的标准池|水温常年二十八度|有儿童浅水池#6-9#20-22#游一次#30-80-5
书店#商场里的书店|那家独立书店#书店#有个小咖啡角|二手书区很大|每周六有读书会#9-10#20-22##
理发店#小区门口的理发店|常去的理发店#造型#托尼老师手艺很好|要提前在手机上预约|老板是温州人#9-10#20-22#剪一次头#30-120-5
宠物医院#附近那家宠物医院|宠物医院#宠物医院#晚上也有医生值班|可以给猫洗澡|提供寄养服务#8-9#19-22#打一针疫苗#60-200-10
火锅店#那家火锅店|楼下新开的火锅店#火锅#牛油锅底特别香|晚上经常要排队|有川剧变脸表演#10-11#22-23#人均#70-180-5
药店#小区里的药店|那家大药房#大药房#能刷医保卡|可以免费量血压|晚上有人值班#7-8#21-23##`).map(
  ([, refs = "", suffix = "", feats = "", open, close, pl = "", fee]) => {
    return { refs: T(refs), suffix, feats: T(feats), open: range(open), close: range(close), pl, fee: range(fee) };
  },
);

// ---- chit-chat ---------------------------------------------------------------------------------------------------
const chitClause = (r: Rng): string =>
  [
    () => r.pick(lex("time")) + r.pick(lex("weather")),
    () => r.pick(lex("time")) + r.pick(lex("mood")),
    () => `${r.pick(lex("time"))}吃了${r.pick(lex("meal"))}`,
    () => r.pick(lex("work")),
    () => r.pick(lex("misc")),
  ][r.int(5)]!();
const chitSentence = (r: Rng) => chitClause(r) + phrase(r, "sentenceEnd");
function chit(r: Rng): string {
  if (r.chance(0.07)) return r.pick(lex("short")) + phrase(r, "shortEnd");
  return (r.chance(0.4) ? `${chitClause(r)}，${chitClause(r)}` : chitClause(r)) + phrase(r, "chitEnd");
}

// ---- the model ---------------------------------------------------------------------------------------------------
type V = number | string;
type Form = "name" | "rel";
type Stage = "self" | "adult" | "old" | "kid" | "item" | "event" | "place";
type Msg = { content: string };
type Rel = { label: string; my: string; group: string; g: string; stage: Stage; lo: string; hi: string; flags: string };
type ItemDef = { names: string[]; mw: string; group: string; brands: string[]; price: Range };
type EventDef = Record<"k" | "how" | "unit", string> &
  Record<"refs" | "keys" | "places" | "extra", string[]> &
  EventNums;
type EventNums = Record<"people" | "amount" | "dur", Range>;
type PlaceDef = { refs: string[]; suffix: string; feats: string[]; open: Range; close: Range; pl: string; fee: Range };
type Who = { name?: string; given?: string; givenOk?: boolean; g?: string; rel?: Rel };
type What = { item?: ItemDef; event?: EventDef; place?: PlaceDef; refs: string[] };
/** A person (the speaker is stage "self") or a thing; binding: the line giving a person's name and relation together. */
type Ent = Who & What & { kind: "person" | "thing"; stage: Stage; vars: Record<string, string> } & Told;
type Told = { vals: Map<string, V>; facts: Map<string, Fact>; binding?: Msg };
type Fact = { e: Ent; key: string; v: V; msgs: Msg[]; forms: Form[]; ante?: Msg };
type Conv = { names: Set<string>; givens: Map<string, number>; selfAge: number; surname: string; selfG: string };
type Attr = { on: string[]; say: string[]; ask: string[]; pair?: string[]; desc?: string[]; cmp?: string[]; fmt?: Fmt };
type Fmt = (r: Rng, v: V) => string;

/** How a fact's value is written (last column of the table below). */
const FORMAT: Record<string, Fmt> = {
  num: (r, v) => num(r, Number(v)),
  cnt: (r, v) => cnt(r, Number(v)),
  money: (r, v) => money(r, Number(v)),
  clock: (r, v) => clock(r, Number(v)),
  height: (r, v) => height(r, Number(v)),
  distance: (r, v) => distance(r, Number(v)),
  dur: (r, v) => cnt(r, Number(v)) + "{unit}",
  date,
};
// ---- facts: who has them # how they are told # asked # told over two lines (split by /) # how a person is
// described by them # how two are compared # how the value is written ------------------------------------------------------------------------
const ATTR = new Map<string, Attr>(
  rows(`
age#self adult old kid#{s}今年{v}岁了|{s}{v}岁|{s}已经{v}了|{s}刚过完{v}岁生日|{s}今年{v}，看着一点不显老|说起来{s}今年都{v}岁了|{s}{v}周岁#{s}多大了？|{s}今年几岁？|{s}的年龄是多少？|{s}今年多少岁？|{s}多大年纪了？|{s}岁数多大？#你猜{s}多大？/{v}岁！|{s}的年纪我老记不住/今年{v}岁了，应该没错##{a}和{b}谁年纪大？|{a}跟{b}谁更年轻？|{a}和{b}哪个岁数大一些？|{a}与{b}比，谁年龄小？#num
birthday#self adult old kid#{s}的生日是{v}|{s}{v}过生日|{v}是{s}的生日|{s}生日在{v}，到时候得提醒自己|{s}是{v}出生的#{s}的生日是哪天？|{s}什么时候过生日？|{s}是几月几号生的？|{s}生日在几号？###{a}和{b}谁的生日在一年里更靠前？|一年当中{a}和{b}谁先过生日？#date
job#self adult#{s}是{v}|{s}在当{v}|{s}的工作是{v}|{s}干{v}这一行好多年了|{s}现在做{v}|{s}是个{v}，平时忙得很|{s}的职业是{v}#{s}是做什么工作的？|{s}干哪一行？|{s}的职业是什么？|{s}是干什么的？|{s}从事什么工作？#{s}的工作挺辛苦的/是{v}|{s}换过好几份工作/现在是{v}#当{v}的|做{v}的##
employer#self adult#{s}在{v}上班|{s}在{v}工作|{s}就职于{v}|{s}是{v}的员工|{s}前年跳槽去了{v}|{s}一直在{v}干#{s}在哪家单位上班？|{s}在哪里工作？|{s}的单位是哪家？|{s}供职于哪里？|{s}在什么地方任职？|{s}是哪个公司的？#{s}的单位离家挺远/在{v}|{s}最近工作稳定下来了/在{v}上班#在{v}上班的|在{v}工作的##
city#self adult old#{s}住在{v}|{s}现在在{v}定居|{s}一家都在{v}|{s}在{v}生活好几年了|{s}人在{v}|{s}常年待在{v}#{s}住在哪个城市？|{s}现在在哪儿生活？|{s}家在哪个城市？|{s}定居在哪里？|{s}人在哪座城市？#{s}前几年搬家了/搬去了{v}|{s}现在不在老家/住在{v}#住在{v}的|在{v}生活的##
hometown#self adult old#{s}老家是{v}的|{s}是{v}人|{s}从小在{v}长大|{s}的老家在{v}|{s}老家{v}，每年过年都回去#{s}老家是哪里的？|{s}是哪里人？|{s}的家乡在哪？|{s}是在哪儿长大的？|{s}祖籍是哪儿？##老家是{v}的|老家在{v}的##
school#self adult#{s}是{v}毕业的|{s}大学读的{v}|{s}毕业于{v}|{s}当年考上了{v}|{s}在{v}念的大学#{s}是哪个学校毕业的？|{s}大学在哪读的？|{s}的母校是哪所？|{s}上的哪所大学？##{v}毕业的|在{v}读过书的##
kschool#kid#{s}在{v}上学|{s}读的是{v}|{s}的学校是{v}|{s}每天去{v}上课#{s}在哪个学校读书？|{s}上的哪所小学？|{s}在哪儿上学？####
kgrade#kid#{s}今年上{v}年级|{s}读{v}年级了|{s}在念小学{v}年级|{s}升{v}年级了#{s}上几年级了？|{s}读几年级？|{s}现在念几年级？####num
hobby#self adult old kid#{s}平时喜欢{v}|{s}的爱好是{v}|{s}一有空就去{v}|{s}迷上了{v}|{s}周末基本都在{v}|{s}{v}好多年了，水平挺高#{s}有什么爱好？|{s}平时喜欢干嘛？|{s}业余时间爱做什么？|{s}闲下来都玩些什么？|{s}的兴趣是什么？#{s}最近可上瘾了/天天{v}|{s}有个爱好/就是{v}#喜欢{v}的|爱{v}的##
food#self adult old kid#{s}最爱吃{v}|{s}特别喜欢{v}|{s}一顿能吃好多{v}|{s}最喜欢的菜是{v}|每次聚餐{s}都要点{v}|{s}对{v}情有独钟#{s}最喜欢吃什么？|{s}爱吃什么菜？|{s}最喜欢的食物是啥？|{s}口味上偏爱什么？|{s}吃饭最爱点什么？##最爱吃{v}的|爱吃{v}的##
pet#adult old kid#{s}养了一只{v}|{s}家里有只{v}|{s}前年抱回来一只{v}|{s}养的是{v}|{s}有只{v}，宝贝得不得了|{s}每天下班第一件事就是陪{ta}的{v}#{s}养的什么宠物？|{s}家里养了什么小动物？|{s}的宠物是什么？|{s}养了啥宠物？##养{v}的|养了只{v}的##
petName#adult old kid#{s}的{k}叫{v}|{s}给{k}取名叫{v}|{s}家{k}的名字是{v}|{s}家那只{k}叫{v}#{s}的宠物叫什么名字？|{s}家的{k}叫啥？|{s}给宠物起的什么名？####
car#adult#{s}开的是{v}|{s}买了辆{v}|{s}的车是{v}|{s}前年换了台{v}|{s}上下班开一辆{v}|{s}攒钱提了一辆{v}#{s}开什么车？|{s}的车是什么牌子？|{s}买的哪个牌子的车？|{s}开的车是啥？##开{v}的##
phone#adult#{s}用的是{v}手机|{s}的手机是{v}的|{s}一直用{v}|{s}刚换了部{v}手机|{s}只认{v}手机#{s}用什么牌子的手机？|{s}的手机是哪家的？|{s}用的啥手机？##用{v}手机的##
height#self adult old kid#{s}身高{v}|{s}个子{v}|{s}大概有{v}|{s}量过，{v}|{s}有{v}高|{s}的身高是{v}#{s}多高？|{s}个子有多高？|{s}身高是多少？|{s}有多高？|{s}个头多少？###{a}和{b}谁更高？|{a}跟{b}比，谁个子高？|{a}和{b}哪个矮一点？|{a}和{b}谁个头大？#height
spouse#adult#{s}的{sp}叫{v}|{s}{wed}{v}|{s}和{v}结婚好几年了|{s}跟{v}是大学时候认识的，后来结了婚#{s}的{sp}叫什么？|{s}和谁结的婚？|{s}的另一半叫什么名字？|{s}的爱人是谁？####
kids#adult#{s}有{v}个孩子|{s}家{v}个娃|{s}生了{v}个孩子|{s}家里{v}个小孩，热闹得很#{s}有几个孩子？|{s}家几个娃？|{s}有孩子吗？有几个？|{s}家小孩有几个？###{a}和{b}谁家孩子多？|{a}跟{b}比，谁的孩子更多？#cnt
kidGrade#adult#{s}的{kid}今年上{v}年级|{s}家{kid}读{v}年级了|{s}的{kid}在念小学{v}年级#{s}的孩子上几年级？|{s}家{kid}读几年级了？|{s}的{kid}现在几年级？####num
visited#adult#{s}去过{v}个国家|{s}已经走过{v}个国家了|{s}的护照上盖了{v}个国家的章|{s}出国玩过{v}个国家#{s}去过几个国家？|{s}一共去过多少个国家？|{s}出国去过多少地方？###{a}和{b}谁去过的国家多？|{a}跟{b}比，谁出国去的地方更多？#cnt
yearsAt#self adult#{s}在现在的单位干了{v}年|{s}在那家单位待了{v}年了|{s}入职{v}年了|{s}在单位里已经{v}年了，算老员工#{s}在现在的单位干了多久？|{s}入职几年了？|{s}在单位待了几年？###{a}和{b}谁在现在的单位待得更久？|{a}跟{b}谁在现单位的工龄更长？#cnt
brand#item#{s}是{v}的|{s}买的{v}牌子|{s}挑的是{v}家的|{s}选了{v}，用着还行|{s}是{v}出的|{s}牌子是{v}#{s}是什么牌子的？|{s}是哪个品牌的？|{s}是哪家的？|{s}买的什么牌子？####
price#item#{s}花了{v}|{s}是{v}买的|{s}的价格是{v}|{s}花了我{v}|{s}到手价{v}|{s}{v}，有点肉疼#{s}多少钱买的？|{s}花了多少钱？|{s}的价格是多少？|{s}买成多少钱？###{a}和{b}哪个更贵？|{a}和{b}哪个花钱多？|{a}跟{b}比哪个便宜？#money
where#item#{s}是在{v}买的|{s}从{v}买的|{s}在{v}下的单|{s}是{v}入手的|{s}在{v}买的，还挺划算#{s}在哪儿买的？|{s}是从哪个渠道买的？|{s}是在哪买到的？|{s}从哪儿入手的？####
colour#item#{s}是{v}的|{s}选的{v}|{s}挑了{v}的|{s}颜色是{v}|{s}是{v}款#{s}是什么颜色？|{s}什么颜色的？|{s}选的哪个颜色？####
bought#item#{s}是{v}买的|{s}{v}到的货|{s}是{v}下单的|{s}{v}送到家的#{s}是什么时候买的？|{s}哪天买的？|{s}是啥时候入手的？####date
years#item#{s}用了{v}年了|{s}买了{v}年了|{s}已经陪了我{v}年#{s}用了几年了？|{s}买了多久了？|{s}用了多长时间？###{a}和{b}哪个用得更久？|{a}和{b}哪个买得早？#cnt
date#event#{s}定在{v}|{s}在{v}|{s}的日子是{v}|{s}的时间是{v}|{s}就在{v}#{s}是哪天？|{s}是什么时候？|{s}在几月几号？|{s}定在哪天？|{s}的日期是哪天？####date
end#event#{s}到{v}才结束|{s}一直持续到{v}|{v}{s}才算结束|{s}{v}收尾#{s}哪天结束的？|{s}什么时候结束的？####date
place#event#{s}在{v}办的|{s}办在{v}|{s}的场地是{v}|{s}选在了{v}#{s}在哪办的？|{s}的场地在哪儿？|{s}在什么地方举行的？####
people#event#{s}一共来了{v}个人|{s}有{v}个人参加|参加{s}的总共{v}人|{s}到场的有{v}位#{s}有多少人参加？|{s}来了几个人？|{s}一共多少人？|{s}的人数是多少？###{a}和{b}哪次人多？|{a}跟{b}比，哪个来的人更多？#cnt
tables#event#{s}摆了{v}桌|{s}一共开了{v}桌酒席|{s}订了{v}桌#{s}摆了几桌？|{s}一共有多少桌？|{s}订了几桌酒席？####cnt
cost#event#{s}一共花了{v}|{s}总共花掉{v}|{s}算下来花了{v}|{s}的开销是{v}|{s}前前后后花了{v}#{s}花了多少钱？|{s}总共花费多少？|{s}一共用了多少钱？|{s}的开销有多大？###{a}和{b}哪个花钱更多？|{a}跟{b}比，哪次更省钱？#money
dur#event#{s}持续了{v}|{s}前后{v}|{s}搞了整整{v}|{s}一共{v}#{s}持续了多久？|{s}用了多长时间？|{s}一共多长时间？###{a}和{b}哪个时间长？#dur
extra#event#-#-####
name#place#{s}叫{v}|{s}的名字是{v}|{s}招牌上写的是{v}|{s}全名叫{v}#{s}叫什么名字？|{s}的名字是啥？|{s}叫什么？####
feat#place#{s}{v}|{s}里面{v}|我发现{s}{v}|{s}最特别的是{v}#{s}里有什么特别的？|{s}有什么特色？|{s}有什么好玩的？####
dist#place#{s}离我家{v}|从我家到{s}{v}|{s}不远，也就{v}|{s}离我住的地方{v}#{s}离我家多远？|{s}距离我家有多远？|从家里到{s}有多远？###{a}和{b}哪个离我家更近？|{a}跟{b}哪个远一点？#distance
open#place#{s}{v}开门|{s}每天{v}就开了|{s}{v}开始营业|{s}开得挺早，{v}就开门#{s}几点开门？|{s}早上几点开？|{s}什么时候开始营业？###{a}和{b}哪个开门早？|{a}跟{b}哪个开得晚？#clock
close#place#{s}{v}关门|{s}开到{v}|{s}{v}打烊|{s}营业到{v}#{s}几点关门？|{s}开到几点？|{s}几点打烊？|{s}营业到几点？###{a}和{b}哪个关门晚？|{a}跟{b}哪个关得早？#clock
fee#place#{s}{pl}{v}|{s}的{pl}要{v}|在{s}，{pl}是{v}#{s}的{pl}多少钱？|在{s}{pl}要多少钱？|{s}{pl}什么价？####money`).map(
    ([key = "", on = "", say = "", ask = "", pair, desc, cmp, fmt = ""]) => [
      key,
      { on: W(on), say: T(say), ask: T(ask), pair: opt(pair), desc: opt(desc), cmp: opt(cmp), fmt: FORMAT[fmt] },
    ],
  ),
);
const n = (v: V | undefined) => Number(v);
const flag = (e: Ent, f: string) => e.rel?.flags.includes(f) ?? false;
const jobOf = (v: V | undefined) => JOBS.find((j) => j.job === v);

/** Each fact's value for an entity, or undefined when it has none (made in this order: later ones may use earlier);
 * a fact with no entry here is picked from the word list of its name. */
const GEN: Record<string, (r: Rng, e: Ent, c: Conv) => V | undefined> = {
  age: (r, e, c) => {
    if (e.stage === "self") return c.selfAge;
    let [lo, hi] = [bound(e.rel!.lo, c.selfAge), bound(e.rel!.hi, c.selfAge)];
    if (e.stage === "kid") hi = Math.min(hi, c.selfAge - 22);
    else lo = Math.max(lo, 18);
    return span(r, [lo, Math.max(lo, hi), 1]);
  },
  birthday: (r) => (r.chance(0.05) ? r.pick(lex("fuzzyBirthday")) : randDate(r)),
  job: (r, e) => (flag(e, "j") ? undefined : r.pick(JOBS).job),
  employer: (r, e) => jobOf(e.vals.get("job")) && r.pick(jobOf(e.vals.get("job"))!.orgs),
  kgrade: (_r, e) => Math.min(6, n(e.vals.get("age")) - 5),
  hobby: (r, e) => r.pick(lex(e.stage === "kid" ? "khobby" : "hobby")),
  pet: (r, e) => (r.chance(e.stage === "adult" ? 0.4 : 0.3) ? (e.vars.k = r.pick([...PETS.keys()])) : undefined),
  petName: (r, e) => (e.vals.has("pet") ? r.pick(lex("petName")) : undefined),
  car: (r) => (r.chance(0.55) ? r.pick(lex("car")) : undefined),
  height: (r, e) => {
    if (e.stage === "kid") return 105 + (n(e.vals.get("age")) - 5) * 6 + r.int(9) - 4;
    const m = e.g === "m";
    return span(r, e.stage === "old" ? [m ? 158 : 148, m ? 175 : 165, 1] : [m ? 162 : 150, m ? 188 : 174, 1]);
  },
  spouse: (r, e, c) => {
    if (!flag(e, "w") || r.chance(0.3)) return undefined;
    [e.vars.sp, e.vars.wed] =
      e.g === "m" ? [r.pick(T("老婆|妻子|爱人")), "娶了"] : [r.pick(T("老公|丈夫|爱人")), "嫁给了"];
    return newName(r, c, e.g === "m" ? "f" : "m").name;
  },
  kids: (r, e) => (flag(e, "k") && n(e.vals.get("age")) >= 24 ? r.pick([0, 1, 1, 1, 2, 2, 3]) : undefined),
  kidGrade: (r, e) => {
    const age = n(e.vals.get("age"));
    if (n(e.vals.get("kids") ?? 0) < 1 || age < 28) return undefined;
    e.vars.kid = e.vals.get("kids") === 1 ? r.pick(T("儿子|女儿|闺女")) : "老大";
    return 1 + r.int(Math.min(6, age - 27));
  },
  visited: (r) => 1 + r.int(25),
  yearsAt: (r, e) => (e.vals.has("employer") ? 1 + r.int(Math.min(25, n(e.vals.get("age")) - 21)) : undefined),
  brand: (r, e) => r.pick(e.item!.brands),
  price: (r, e) => span(r, e.item!.price) - (r.chance(0.4) ? 1 : 0),
  bought: (r) => (r.chance(0.1) ? r.pick(lex("fuzzyBought")) : randDate(r)),
  years: (r) => 1 + r.int(8),
  people: (r, e) => span(r, e.event!.people),
  tables: (_r, e) => (e.event!.how === "table" ? Math.max(3, Math.round(n(e.vals.get("people")) / 10)) : undefined),
  cost: (r, e) => {
    const { how, amount } = e.event!;
    const base = how === "per" ? n(e.vals.get("people")) : how === "table" ? n(e.vals.get("tables")) : 1;
    return how === "none" ? undefined : base * span(r, amount);
  },
  date: (r, e) => (r.chance(0.15) ? r.pick(lex("fuzzyEvent")) : randDate(r, e.event!.k === "装修" ? 8 : 11)),
  dur: (r, e) => span(r, e.event!.dur),
  end: (_r, e) => {
    const [d, keys] = [e.vals.get("date"), e.event!.keys];
    return typeof d === "number" && keys.includes("end") ? addDays(d, n(e.vals.get("dur")) - 1) : undefined;
  },
  place: (r, e) => (e.event!.places.length ? r.pick(e.event!.places) : undefined),
  extra: (r, e) => (e.event!.extra.length ? r.pick(e.event!.extra) : undefined),
  feat: (r, e) => r.pick(e.place!.feats),
  dist: (r) => span(r, [200, 4000, 100]),
  open: (r, e) => span(r, e.place!.open),
  close: (r, e) => span(r, e.place!.close),
  fee: (r, e) => (e.place!.fee[0] ? span(r, e.place!.fee) : undefined),
};
/** A category word a value falls under, for descriptions and counts the evidence never words so (狗 over 柯基). */
const CAT: Record<string, (v: V) => string | undefined> = {
  job: (v) => jobOf(v)?.cat || undefined,
  pet: (v) => PETS.get(String(v)) || undefined,
  car: (v) => (lex("nev").includes(String(v)) ? "新能源车" : undefined),
};

/** The fact as this entity tells it: an event type may word its place, date… its own way. */
function attrOf(e: Ent, key: string): Attr {
  const a = ATTR.get(key)!;
  const own = e.event && EVENT_WORDING.get(`${e.event.k}.${key}`);
  return own ? { ...a, say: own[0], ask: own[1] } : a;
}
const fmtV = (r: Rng, e: Ent, key: string, v: V) => fill(attrOf(e, key).fmt?.(r, v) ?? String(v), e.vars);

// ---- entities ---------------------------------------------------------------------------------------------------
function newName(r: Rng, c: Conv, g: string, surname?: string): { name: string; given: string } {
  const given = r.pick(lex(g === "m" ? "givenM" : "givenF"));
  const name = (surname ?? r.pick(lex("surnames"))) + given;
  if (c.names.has(name)) return newName(r, c, g, surname);
  c.names.add(name);
  c.givens.set(given, (c.givens.get(given) ?? 0) + 1);
  return { name, given };
}
function entity(r: Rng, c: Conv, kind: Ent["kind"], stage: Stage, set: Partial<Ent>, keys: string): Ent {
  const e: Ent = { kind, stage, refs: [], vars: {}, vals: new Map(), facts: new Map(), ...set };
  for (const k of W(keys)) {
    const v = !ATTR.get(k)!.on.includes(stage) ? undefined : GEN[k] ? GEN[k](r, e, c) : r.pick(lex(k));
    if (v !== undefined) e.vals.set(k, v);
  }
  return e;
}
const PERSON_KEYS = `age birthday job employer city hometown school kschool kgrade hobby food pet petName car phone
  height spouse kids kidGrade visited yearsAt`;
function person(r: Rng, c: Conv, rel: Rel | undefined): Ent {
  const g = rel ? (rel.g === "x" ? r.pick(["m", "f"]) : rel.g) : c.selfG;
  const named = rel ? newName(r, c, g, rel.flags.includes("x") ? c.surname : undefined) : {};
  const set = { rel, g, vars: { ta: g === "m" ? "他" : "她" }, ...named };
  return entity(r, c, "person", rel?.stage ?? "self", set, PERSON_KEYS);
}

// ---- telling: a story is a list of units, each one or more consecutive messages -------------------------------
const BOTH: Form[] = ["name", "rel"];
const FORMS = { name: ["name"], rel: ["rel"], both: BOTH } as const;
const mk = (content: string): Msg => ({ content });
const end = (r: Rng, s: string) => (/[？！。~]$/.test(s) ? s : s + phrase(r, "end"));
const unique = (e: Ent) => e.rel?.flags.includes("u") ?? true;
const pickForm = (r: Rng, e: Ent, x = r.next()) =>
  unique(e) ? (x < 0.32 ? "name" : x < 0.72 ? "rel" : "both") : x < 0.62 ? "name" : "both";
function personRef(r: Rng, e: Ent, form: keyof typeof FORMS): string {
  const rel = e.rel!;
  const nm = e.givenOk && r.chance(0.3) ? e.given! : e.name!;
  if (form === "name") return nm;
  if (form === "rel") return (rel.group === "亲戚" || rel.label.length > 2) && r.chance(0.3) ? rel.label : rel.my;
  return (r.chance(0.75) ? rel.my : rel.label) + nm;
}
const thingRef = (r: Rng, e: Ent) =>
  fill(r.pick(e.refs), { n: e.item ? r.pick(e.item.names) : "", mw: e.item?.mw ?? "" });
/** A reference to e, and what it identifies e by; in a question the forms say which a fact line must carry. */
function ref(r: Rng, e: Ent, form?: keyof typeof FORMS): [string, Form[]] {
  if (e.kind === "thing") return [thingRef(r, e), []];
  if (e.stage === "self") return ["我", []];
  const f = form ?? pickForm(r, e);
  return [personRef(r, e, f), [...FORMS[f]]];
}
const pron = (e: Ent) => (e.stage === "self" ? "我" : e.kind === "person" ? e.vars.ta! : e.item ? "它" : "");
/** One sentence telling e's fact key with subject s; "zero" drops the subject where the wording allows. */
function sentence(r: Rng, e: Ent, key: string, s: string, mode: "full" | "zero" | "pron" = "full"): string {
  const v = e.vals.get(key)!;
  let ts = key === "kids" && v === 0 ? PHRASE.get("kids0")! : attrOf(e, key).say;
  const lead = ts.filter((t) => t.startsWith("{s}") && (mode === "pron" || !/^\{s\}[的家]|，/.test(t)));
  if (mode !== "full" && lead.length) ts = lead;
  const t = r.pick(ts);
  const zero = mode === "zero" && lead.includes(t);
  const subject = mode === "full" ? s : zero ? "" : pron(e) || s;
  return fill(zero ? t.slice(3) : t, { ...e.vars, s: subject, v: fmtV(r, e, key, v) });
}

function story(r: Rng, e: Ent, keys: string[]): Msg[][] {
  const units: Msg[][] = [];
  const isPerson = e.kind === "person" && e.stage !== "self";
  const add = (key: string, msgs: Msg[], forms: Form[], ante?: Msg) =>
    e.facts.set(key, { e, key, v: e.vals.get(key)!, msgs: [...msgs], forms: e.stage === "self" ? BOTH : forms, ante });
  let last: { m: Msg; forms: Form[] } | undefined; // a line about e that a 他/她/它 may follow
  if (isPerson && r.chance(0.45)) {
    e.binding = mk(end(r, phrase(r, unique(e) ? "introU" : "introS", { ...e.vars, ...e.rel!, n: e.name! })));
    units.push([e.binding]);
    last = { m: e.binding, forms: BOTH };
  } else if (e.kind === "thing" && r.chance(0.3)) {
    units.push([mk(end(r, phrase(r, "introT", { s: thingRef(r, e) })))]);
    if (e.item) last = { m: units[0]![0]!, forms: [] };
  }
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k]!;
    const needBinding = isPerson && !e.binding;
    const [s, forms] = ref(r, e, needBinding ? "both" : undefined);
    const pair = attrOf(e, key).pair;
    const x = r.next();
    if (last && (isPerson || e.item) && x < 0.14) {
      const m = mk(end(r, sentence(r, e, key, pron(e), "pron"))); // 他/她/它 right after a line about e
      units[units.length - 1]!.push(m);
      add(key, [m], last.forms, last.m);
      last = undefined;
      continue;
    }
    let unit: Msg[];
    last = undefined;
    if (x < 0.27 && k + 1 < keys.length) {
      const key2 = keys[++k]!; // two facts in one message
      unit = [mk(end(r, sentence(r, e, key, s) + phrase(r, "join") + sentence(r, e, key2, s, "zero")))];
      add(key2, unit, forms);
    } else if (x < 0.35 && e.stage !== "self") {
      const lead = phrase(r, isPerson ? "lead" : "leadThing", { s }) + phrase(r, "leadEnd");
      unit = [mk(lead), mk(end(r, sentence(r, e, key, s, "zero")))];
    } else if (x < 0.43 && pair) {
      const vars = { ...e.vars, s, v: fmtV(r, e, key, e.vals.get(key)!) };
      const parts = r.pick(pair).split("/");
      unit = parts.map((p) => mk(end(r, fill(p, vars))));
    } else if (x < 0.56) {
      const said = sentence(r, e, key, s); // told inside chit-chat
      unit = [mk(r.chance(0.5) ? chitSentence(r) + end(r, said) : `${said}。${chitSentence(r)}`)];
    } else {
      unit = [mk(end(r, sentence(r, e, key, s)))];
      last = { m: unit[0]!, forms };
    }
    add(key, unit, forms);
    if (needBinding) e.binding = unit[0];
    units.push(unit);
  }
  return units;
}

// ---- questions ---------------------------------------------------------------------------------------------------
type Q = { question: string; ev: Msg[]; category: string };
/** The lines a fact needs: its own, the one its pronoun points to, and the name-relation line when the asker's
 * reference (need) is none of those the fact line carries. */
function evidence(f: Fact, need: readonly Form[] = []): Msg[] {
  const out = f.ante ? [f.ante, ...f.msgs] : [...f.msgs];
  if (need.length && f.e.binding && !need.some((x) => f.forms.includes(x))) out.push(f.e.binding);
  return out;
}
const evidence1 = (f: Fact) => evidence(f);
const ask = (r: Rng, e: Ent, key: string, s: string) => fill(r.pick(attrOf(e, key).ask), { ...e.vars, s });
const descKey = (f: Fact, useCat: boolean) => (useCat ? CAT[f.key]?.(f.v) : String(f.v));

function makeQuestions(r: Rng, ents: Ent[], total: number): Q[] {
  const facts = ents.flatMap((e) => [...e.facts.values()]);
  const persons = ents.filter((e) => e.kind === "person");
  const others = persons.filter((e) => e.stage !== "self");
  const of = (t: Stage) => ents.filter((e) => e.stage === t);
  const told = (pool: Ent[], key: string) => pool.flatMap((e) => (e.facts.has(key) ? [e.facts.get(key)!] : []));
  const inGroup = (e: Ent, g?: string) => !g || e.rel?.group === g;
  const groupOf = (e: Ent) => (GROUP_WORD.has(e.rel!.group) && r.chance(0.6) ? e.rel!.group : undefined);
  /** A fact of a person counted in a group: the relation line too when the fact line does not say it. */
  const inGroupEv = (g?: string) => (f: Fact) =>
    g && !f.forms.includes("rel") && f.e.binding ? [...evidence(f), f.e.binding] : evidence(f);
  const q = (question: string, ev: Msg[], category = "aggregative"): Q => ({ question, ev, category });
  const simple = (f: Fact, noise = ""): Q => {
    const [s, need] = ref(r, f.e);
    return q(noise + ask(r, f.e, f.key, s), evidence(f, need), noise ? "noisy" : "simple");
  };
  const chatter = () => Array.from({ length: 1 + r.int(3) }, () => chitSentence(r)).join("") + phrase(r, "noiseJoin");
  const conditional = (): Q | undefined => {
    const fa = r.pick(facts);
    const e = fa.e;
    const descs = [...e.facts.values()].filter((f) => f.key !== fa.key && ATTR.get(f.key)!.desc);
    if (e.kind !== "person" || e.stage === "self" || !descs.length) return undefined;
    const fd = r.pick(descs);
    const useCat = !!CAT[fd.key]?.(fd.v) && r.chance(0.35);
    const dv = descKey(fd, useCat)!;
    const g = groupOf(e);
    if (told(others, fd.key).filter((f) => inGroup(f.e, g) && descKey(f, useCat) === dv).length !== 1) return undefined;
    const d = fill(r.pick(ATTR.get(fd.key)!.desc!), { v: dv });
    const s = phrase(r, g ? "cond.g" : "cond.all", { d, G: g ? GROUP_WORD.get(g)! : "" });
    const link = fd.forms.some((x) => fa.forms.includes(x));
    const needRel = !!g && !fd.forms.includes("rel") && !fa.forms.includes("rel");
    const bind = (!link || needRel) && e.binding ? [e.binding] : [];
    return q(ask(r, e, fa.key, s), [...evidence(fd), ...evidence(fa), ...bind], "conditional");
  };
  const comparative = (): Q | undefined => {
    const f1 = r.pick(facts);
    const cmp = attrOf(f1.e, f1.key).cmp;
    const pool = facts.filter((f) => f.key === f1.key && f.e !== f1.e && typeof f.v === "number" && f.v !== f1.v);
    if (!cmp || typeof f1.v !== "number" || !pool.length) return undefined;
    const f2 = r.pick(pool);
    if (f1.key === "dur" && f1.e.event!.unit !== f2.e.event!.unit) return undefined;
    const [[sa, na], [sb, nb]] = [ref(r, f1.e), ref(r, f2.e)];
    return q(fill(r.pick(cmp), { a: sa, b: sb }), [...evidence(f1, na), ...evidence(f2, nb)], "comparative");
  };
  const aggregative: (() => Q | undefined)[] = [
    () => {
      const key = r.pick(W("city hometown employer job school hobby pet car phone food"));
      const f0 = r.pick(told(others, key));
      if (!f0) return undefined;
      const useCat = !!CAT[key]?.(f0.v) && r.chance(0.5);
      const g = groupOf(f0.e);
      const hits = told(others, key).filter((f) => inGroup(f.e, g) && descKey(f, useCat) === descKey(f0, useCat));
      const d = fill(r.pick(ATTR.get(key)!.desc!), { v: descKey(f0, useCat)! });
      const vars = { d, dv: d.replace(/的$/, ""), G: g ? GROUP_WORD.get(g)! : "" };
      if (hits.length < 2 || hits.length > 8) return undefined;
      return q(phrase(r, g ? "agg.g" : "agg.all", vars), hits.flatMap(inGroupEv(g)));
    },
    () => {
      const g = r.pick([...GROUP_WORD.keys()]);
      const key = r.pick(W("city job employer hobby phone car"));
      const hits = told(others, key).filter((f) => inGroup(f.e, g));
      if (hits.length < 2 || hits.length > 6) return undefined;
      const s = phrase(r, "agg.members", { G: GROUP_WORD.get(g)! });
      return q(ask(r, hits[0]!.e, key, s).replace(/？$/, phrase(r, "agg.tail")), hits.flatMap(inGroupEv(g)));
    },
    () => {
      const key = r.pick(W("brand where colour"));
      const f0 = r.pick(told(of("item"), key));
      const hits = told(of("item"), key).filter((f) => f.v === f0?.v);
      if (hits.length < 2) return undefined;
      return q(phrase(r, `agg.${key}`, { v: String(f0!.v) }), hits.flatMap(evidence1));
    },
    () => {
      const group = r.pick([...ITEM_GROUPS.keys()]);
      const inG = of("item").filter((e) => e.item!.group === group);
      const key = r.pick(W("brand where price"));
      if (inG.length < 2 || inG.some((e) => !e.facts.has(key))) return undefined;
      const G = r.pick(T(ITEM_GROUPS.get(group)!));
      return q(phrase(r, `agg.g${key}`, { G }), told(inG, key).flatMap(evidence1));
    },
    () => {
      const key = r.pick(W("cost people open close dist"));
      const fs = shuffle(r, told([...of("event"), ...of("place")], key)).slice(0, 2 + r.int(2));
      const l = fs.map((f) => thingRef(r, f.e)).join(r.pick(T("和|、|跟")));
      return fs.length < 2 ? undefined : q(phrase(r, `agg.${key}`, { l }), fs.flatMap(evidence1));
    },
  ];
  /** Two entities' facts of one kind, the larger first; post-processing over the pair. */
  const two = (key: string, pool: Ent[], differ = true): Q | undefined => {
    const fs = told(pool, key).filter((f) => typeof f.v === "number");
    const [a, b] = shuffle(r, fs) as [Fact?, Fact?];
    if (!a || !b || (differ && a.v === b.v)) return undefined;
    const [hi, lo] = n(a.v) > n(b.v) ? [a, b] : [b, a];
    const [[sa, na], [sb, nb]] = [ref(r, hi.e), ref(r, lo.e)];
    const tpl = key === "age" ? "post.age2" : `post.${key}`;
    return q(phrase(r, tpl, { a: sa, b: sb }), [...evidence(hi, na), ...evidence(lo, nb)], "post-processing");
  };
  /** One entity's fact, with the other facts of it the computation needs. */
  const one = (key: string, pool: Ent[], tpl: string, ok: (f: Fact) => boolean, more: string[] = []) => {
    const fs = told(pool, key).filter((f) => ok(f) && more.every((k) => f.e.facts.has(k)));
    if (!fs.length) return undefined;
    const f = r.pick(fs);
    const [s, need] = ref(r, f.e);
    const ev = [f, ...more.map((k) => f.e.facts.get(k)!)].flatMap((x) => evidence(x, need));
    return q(phrase(r, `post.${tpl}`, { ...f.e.vars, s, k: zh(2 + r.int(8)) }), ev, "post-processing");
  };
  const how = (h: string) => (f: Fact) => f.e.event!.how === h;
  const post: (() => Q | undefined)[] = [
    () => two("age", persons),
    () => one("age", persons, "age", () => true),
    () => two("height", persons),
    () => two("kids", persons, false),
    () => one("kgrade", persons, "kgrade", (f) => n(f.v) <= 5),
    () => one("kidGrade", persons, "kidGrade", (f) => n(f.v) <= 5),
    () => one("yearsAt", persons, "yearsAt", (f) => n(f.v) < 10),
    () => two("price", of("item")),
    () => one("cost", of("event"), "table", how("table"), ["tables"]),
    () => one("cost", of("event"), "per", how("per"), ["people"]),
    () => one("date", of("event"), "days", (f) => typeof f.v === "number", ["end"]),
    () => one("open", of("place"), "hours", () => true, ["close"]),
    () => two("dist", of("place")),
  ];

  const out: Q[] = [];
  const seen = new Set<string>();
  const msgNo = new Map<Msg, number>();
  const no = (m: Msg) => msgNo.get(m) ?? msgNo.set(m, msgNo.size).size - 1;
  /** Keeps a question unless its wording, or (beyond simple ones) its category and evidence, came before. */
  const push = (x: Q | undefined) => {
    const same = x && `${x.category}:${x.ev.map(no).sort().join()}`;
    if (!x || seen.has(x.question) || (!/simple|noisy/.test(x.category) && seen.has(same!))) return false;
    [x.question, same!].forEach((k) => seen.add(k));
    return out.push(x) > 0;
  };
  const quota = (share: number, make: () => Q | undefined) => {
    const want = Math.round(total * share);
    for (let got = 0, tries = 0; got < want && tries < want * 40; tries++) if (push(make())) got++;
  };
  quota(0.13, conditional);
  quota(0.12, comparative);
  quota(0.12, () => r.pick(aggregative)());
  quota(0.13, () => r.pick(post)());
  const order = shuffle(r, facts);
  let noise = Math.round(total * 0.12);
  for (let i = 0; out.length < total && i < order.length * 3; i++) {
    const f = order[i % order.length]!;
    if (noise > 0 && r.chance(0.3)) noise -= push(simple(f, chatter())) ? 1 : 0;
    else push(simple(f));
  }
  return out;
}

// ---- one conversation --------------------------------------------------------------------------------------------
function conversation(r: Rng, cid: string) {
  const [selfAge, surname, selfG] = [span(r, [27, 46, 1]), r.pick(lex("surnames")), r.pick(["m", "f"])];
  const c: Conv = { names: new Set(), givens: new Map(), selfAge, surname, selfG };
  const target = 760 + r.int(1760);
  const chitShare = 0.24 + r.next() * 0.14;
  const ents: Ent[] = [person(r, c, undefined)];
  const EVENT_KEYS = "people tables cost date dur end place extra";
  const some = <X>(xs: X[], per: number) => shuffle(r, xs).slice(0, Math.round(target / per));
  for (const item of some(ITEMS, 95)) {
    const refs = PHRASE.get(/家电|家具/.test(item.group) ? "homeRef" : "itemRef")!;
    ents.push(entity(r, c, "thing", "item", { item, refs }, "brand price where colour bought years"));
  }
  for (const event of some(EVENTS, 190)) {
    const vars = { unit: event.unit === "天" ? "天" : r.pick(["个小时", "个钟头"]) };
    const e = entity(r, c, "thing", "event", { event, refs: event.refs, vars }, EVENT_KEYS);
    for (const k of [...e.vals.keys()]) if (!event.keys.includes(k)) e.vals.delete(k);
    ents.push(e);
  }
  const prefixes = shuffle(r, lex("placeName"));
  for (const place of some(PLACES, 170)) {
    const set = { place, refs: place.refs, vars: { pl: place.pl } };
    const e = entity(r, c, "thing", "place", set, "feat dist open close fee");
    e.vals.set("name", prefixes.pop()! + place.suffix);
    ents.push(e);
  }
  // which facts get told: 2–10 per person, fewer for things, in no fixed order
  const tell = new Map<Ent, string[]>();
  const choose = (e: Ent) => {
    const [lo, hi] = e.stage === "self" ? [6, 10] : e.stage === "item" ? [2, 5] : e.kind === "thing" ? [3, 6] : [2, 10];
    const keys = shuffle(r, [...e.vals.keys()]).slice(0, span(r, [lo, hi, 1]));
    if (keys.includes("petName") && !keys.includes("pet")) keys.push("pet");
    tell.set(e, shuffle(r, keys));
    return keys.length + 0.5;
  };
  let est = 0;
  for (const e of ents) est += choose(e);
  const fits = (x: Rel) => x.label !== (selfG === "m" ? "老公" : "老婆") && (x.stage !== "kid" || selfAge >= 31);
  const mine = RELS.filter((x) => x.flags.includes("u") && fits(x));
  const uniques = shuffle(r, mine);
  const shared = RELS.filter((x) => !x.flags.includes("u"));
  while (est < target * (1 - chitShare)) {
    const e = person(r, c, uniques.length && r.chance(0.45) ? uniques.pop()! : r.pick(shared));
    ents.push(e);
    est += choose(e);
  }
  for (const e of ents) e.givenOk = e.given?.length === 2 && c.givens.get(e.given) === 1;
  // stories; the speaker's own facts one or two at a time, and some others' stories told in two far-apart parts
  const stories: Msg[][][] = [];
  for (const e of ents) {
    const keys = tell.get(e)!;
    if (e.stage === "self") {
      for (let i = 0, k = 1; i < keys.length; i += k, k = 1 + r.int(2)) stories.push(story(r, e, keys.slice(i, i + k)));
      continue;
    }
    const units = story(r, e, keys);
    const cut = units.length >= 4 && r.chance(0.3) ? 2 + r.int(units.length - 2) : units.length;
    stories.push(...[units.slice(0, cut), units.slice(cut)].filter((u) => u.length));
  }
  const queue = shuffle(r, stories);
  // interleave: a few stories are open at a time; chit-chat falls between their units
  let chitLeft = Math.round((stories.flat(2).length * chitShare) / (1 - chitShare));
  const messages: Msg[] = [];
  const open: { units: Msg[][]; at: number }[] = [];
  for (let next = 0; next < stories.length || open.length;) {
    const cap = 1 + r.int(4);
    while (open.length < cap && next < stories.length) open.push({ units: queue[next++]!, at: 0 });
    const unitsLeft = open.reduce((a, s) => a + s.units.length - s.at, 0) + (stories.length - next) * 4;
    if (chitLeft > 0 && r.next() < chitLeft / (chitLeft + unitsLeft)) {
      messages.push(mk(chit(r)));
      chitLeft--;
      continue;
    }
    const j = r.int(open.length);
    const s = open[j]!;
    messages.push(...s.units[s.at++]!);
    if (s.at >= s.units.length) open.splice(j, 1);
  }
  const pos = new Map(messages.map((m, i) => [m, i]));
  const id = (m: Msg) => `${cid}-m${pos.get(m)}`;
  const queries = makeQuestions(r, ents, 400 + r.int(101)).map((x, i): EvalQuery => ({
    id: `${cid}/q${i}`,
    conversationId: cid,
    question: x.question,
    evidence: [...new Set(x.ev)].sort((a, b) => pos.get(a)! - pos.get(b)!).map(id),
    category: x.category,
  }));
  return { messages: messages.map((m) => ({ id: id(m), role: "user" as const, content: m.content })), queries };
}

// ---- main --------------------------------------------------------------------------------------------------------
const args = parseArgs(process.argv.slice(2));
const count = Number(args.get("conversations") ?? 6);
const seed = Number(args.get("seed") ?? 101);
const name = String(args.get("name") ?? "synth-life-zh");
const r = rng(seed);
const dataset: EvalDataset = { format: "memory-eval/v1", name, conversations: [], queries: [] };
for (let k = 0; k < count; k++) {
  const conv = conversation(r, `life${k}`);
  dataset.conversations.push({ id: `life${k}`, messages: conv.messages });
  dataset.queries.push(...conv.queries);
}
dataset.notes = { generator: "bench/synth-life-zh.ts", seed, madeUp: "diagnosis only, never to fit weights" };
evalDatasetSchema.parse(dataset);
const file = `bench/data/${name}.json`;
writeDataset(file, dataset);
const byCat = new Map<string, number>();
for (const x of dataset.queries) byCat.set(x.category!, (byCat.get(x.category!) ?? 0) + 1);
const sizes = dataset.conversations.map((c) => c.messages.length);
console.log(
  `${file}: ${count} conversations, ${sizes.reduce((a, b) => a + b, 0)} messages (${sizes.join(", ")}), ` +
    `${dataset.queries.length} questions (${[...byCat].map(([k, v]) => `${k} ${v}`).join(", ")})`,
);
