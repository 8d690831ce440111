import { normalizeSearchText } from "~/server/text/segment";
import { bilingualDictionary } from "./bilingual-dictionary";
import { lastSentence } from "./question-focus";

/**
 * The kind of value a question asks for, and whether a text holds a value of that kind: "When did
 * Mel paint the sunrise?" wants a time, and "I painted that lake sunrise last year!" holds one while
 * "The sunrise painting is my favourite" does not. The question words that say so (when, 什么时候,
 * 多大) are left out of the query's terms (they match other people's questions in chit-chat), so a
 * term index cannot see the difference; the second stage (second-stage.ts) can. Only kinds whose
 * values have a recognisable surface: a time or date, an age, a number in any text, and in Chinese a
 * height, an occupation (its trades mostly end in 师 or 员; "干什么的" is answered by "他是电工"), a
 * workplace, a pet, an event (参加过哪些活动: 读书会, 婚礼, 团建), a spouse (嫁给了谁: 她先生叫…) and a city
 * or a province (老家在哪: 她是盐城人; CC-CEDICT's place names). Both sides
 * are read after normalizeSearchText (NFKC, lower case, simplified Han). Runs of numerals and digits
 * are bounded and start where a run starts, so a stored text of thousands of them costs linear time.
 */

export type AnswerType =
  | "time"
  | "age"
  | "number"
  | "height"
  | "occupation"
  | "workplace"
  | "pet"
  | "event"
  | "spouse"
  | "place"
  | "pastime"
  | "food";

/** An interjection or conjunction a question may open with ("And when…", "So how old…"). */
const OPENING = String.raw`^(?:(?:and|so|but|then|ok|okay|hey|oh|well)[,\s]+)?`;
const AUXILIARY = String.raw`(?:did|does|do|is|was|were|will|would|are|am|has|have|had|can|could|should|shall)`;

/**
 * Questions asking when: Chinese interrogatives (not 前几天 "a few days ago"); English "when" opening the
 * question and not a clause before it ("When I was a kid, what…?"), or before its verb ("Do you know
 * when is…"); "what/which date, day, year …", "what time".
 */
const ASKS_TIME = new RegExp(
  [
    `什么时候|啥时候|哪天|哪一天|哪日|几号|(?:星期|礼拜)几|(?<![每这上下本一两])周几(?![个次天回遍人])|(?<![前这那头最近])几月|哪年|哪一年|哪个月|哪一个月|何时|几点|什么日子`,
    // Two dates compared: 谁先过生日, 谁的生日更靠前, 谁先结婚, 哪个在前, 哪个先买的 (not 哪个先做: a plan).
    `谁(?:先|早)(?:过|办|结婚|出生|生)|哪一?个(?:在前|在后|更早|更晚|先\\p{sc=Han}{1,2}的)|(?:生日|日子)[^?？]{0,6}(?:更)?(?:靠前|靠后|早|晚)`,
    String.raw`${OPENING}when\b(?![^,，]*[,，])|\bwhen(?:'s|\s+${AUXILIARY})\b`,
    String.raw`\b(?:what|which)\s+(?:date|day|year|month|time|season|week|weekend)\b|\bhow\s+long\s+ago\b|\buntil\s+when\b`,
  ].join("|"),
  "u",
);
/**
 * Questions asking how old, or who is older: 年龄 / 年纪 only as what is asked ("…的年龄是多少", "X的年龄",
 * "谁年纪大"), not "上了年纪的人". A question asking the year someone was born, or their zodiac sign
 * (属什么), asks an age too: either one answers it, after a subtraction.
 */
const ASKS_AGE = new RegExp(
  [
    `多大了|多大年纪|多大岁数|今年多大|几岁|多少岁|(?:年龄|年纪|岁数)(?:是|有)?(?:多少|多大|几)|的(?:年龄|年纪|岁数)[?\\s]*$`,
    `(?:哪|几)一?年(?:出生|生的|生人)|几几年|出生(?:年份|的年份|于哪一?年)|属(?:什么|啥|哪个)(?=[的呀啊呢吧?\\s]|$)|(?:属相|生肖)(?:是)?(?:什么|啥)`,
    `谁的?(?:年龄|年纪|岁数)(?:更|比较|最)?(?:大|小)|谁(?:更|比较|最)?(?:大|小|年长|年轻)(?=[?？吧呢啊\\s]|$)|(?:年龄|年纪|岁数)(?:更|比较|最)(?:大|小)`,
    String.raw`\bhow\s+old\b|\bwhat\s+age\b|\bwhat(?:\s+is|'s)\s+(?:\w+'s?\s+|his\s+|her\s+|their\s+|my\s+|your\s+)?age\b`,
    String.raw`\bwho(?:\s+is|'s|\s+was)\s+(?:the\s+)?(?:older|younger|oldest|youngest)\b`,
  ].join("|"),
  "u",
);
/** Questions asking how many or how much (a count, an amount, a length, a price); not 前几天, 没多大关系. */
const ASKS_NUMBER = new RegExp(
  [
    `多少(?!有点)|(?<![前这那头最近好没们])几(?:[个次位名本只辆套件条张家口天年月周遍回场种门双块元层台间部首]|小时|分钟|公里|岁)`,
    `多久|多长|多高(?!兴)|多重(?!要)|多远|(?<![没不])多大`,
    String.raw`\bhow\s+(?:many|much|long|far|tall|often|big|heavy|old)\b|\bnumber\s+of\b`,
  ].join("|"),
  "u",
);

/**
 * Chinese questions asking what someone does for a living: 什么职业, 做什么工作, 干什么的, 干嘛的, 搞什么的,
 * 从事什么 (行业), 干哪行. Not where someone works (在哪上班 asks a place), what a thing is for (这是干什么的,
 * 做什么用的), a task (有什么工作要做) or a career plan (职业规划).
 */
const ASKS_OCCUPATION = new RegExp(
  [
    // 他是干什么的, not 这是干什么的 (what a thing is for) nor 干什么的时候.
    String.raw`(?<![这那](?:个|些)?是?)(?:做|干|搞)(?:什么|啥|嘛)(?:工作|职业|行业|的(?![东用时地]))`,
    `从事(?:什么|啥|哪)|(?:做|干|是|从事)(?:什么|啥)工作|(?:工作|职业)是(?:什么|啥)(?=[的呀啊呢吧?\\s]|$)|什么职业`,
    `哪个?行业|什么行业|[干做]哪一?行`,
  ].join("|"),
  "u",
);

/** Chinese questions asking how tall someone is: 身高, 多高, 一米几, 个子多高, 差多少厘米. */
const ASKS_HEIGHT = /身高|多高(?!兴)|一米几|(?:个子|个头)(?:有)?多|(?:高|矮)(?:多少|几)|(?:多少|几)(?:厘米|公分)/u;

/** Chinese questions asking about someone's pet: 宠物, 养了什么, 什么品种, 那只猫叫什么. */
const ASKS_PET = /宠物|养(?:了|的)?(?:什么|啥|哪种)|什么品种|猫狗|[猫狗](?:叫|的名字)/u;

/** Chinese questions asking where someone works: 在哪上班, 去哪儿上班, 哪家公司, 哪个单位, 供职于哪里. */
const ASKS_WORKPLACE =
  /(?:[在去]哪(?:里|儿|个地方)?|在什么地方|在什么单位)(?:上班|工作|任职|就职|高就)|在哪(?:家|个|所)(?!城市|地方|省|国家)\p{sc=Han}{1,4}?(?:上班|工作|任职|就职|教书)|哪(?:家|个)(?:公司|单位|企业)|什么(?:公司|单位)|(?:供职|就职|任职)于哪|工作单位|单位是(?:哪|什么)/u;

/**
 * Chinese questions asking which event: 什么活动, 哪些聚会, 那次活动叫什么, 参加过哪些 (not 去过哪些, which
 * asks places as often).
 */
const ASKS_EVENT = new RegExp(
  [
    `(?:什么|啥|哪|哪些|哪个|哪次|哪场|哪几个|哪几次|哪几场)(?:活动|聚会|比赛|展览|演出|聚餐|派对)`,
    `(?:活动|聚会)(?:(?:叫|是)(?:什么|啥|哪)|(?:里|中)(?:有)?哪)|(?:参加|参与|出席)(?:过|了)?(?:什么|啥|哪)`,
  ].join("|"),
  "u",
);

/** Chinese questions asking whom someone married: 嫁给了谁, 娶的是谁, 老婆叫什么, 跟谁结的婚, 结婚了吗. */
const ASKS_SPOUSE = new RegExp(
  [
    `(?:嫁|娶)(?:给了|给|了|的)?(?:是)?(?:谁|哪位|什么人)|(?:和|跟|与)谁结(?:了|的)?婚|结(?:了|过)?婚(?:了)?(?:吗|没)`,
    `(?:老婆|老公|妻子|丈夫|太太|先生|爱人|配偶|媳妇|另一半)(?:是|叫)(?:谁|什么|啥|哪位)|(?:老婆|老公|妻子|丈夫|太太|爱人|配偶|媳妇)的名字`,
  ].join("|"),
  "u",
);

/** Chinese questions asking where: 哪里, 哪个城市, 哪些城市, 什么地方, 老家是哪, 哪里人, 住在哪. */
const ASKS_PLACE = new RegExp(
  [
    // Not where a thing was bought (在哪儿买的: a shop, not a city), nor 哪都行, 哪里哪里, 这哪里是.
    `(?:哪(?:些|个|座)?(?:城市|省|省份|地方)|(?<![这那]|哪里|哪儿)哪(?:里|儿)(?!哪|都|也)|什么地方|在哪(?!都|也|个国家)|住哪)(?![^?？]{0,4}(?:买|购|下单|入手))`,
    `(?:老家|籍贯|家乡|祖籍|出生地)(?:是|在)?(?:哪|什么)`,
  ].join("|"),
  "u",
);

/**
 * Chinese questions asking what someone does in their free time: 爱好, 兴趣, 业余时间做什么, 平时喜欢干嘛,
 * 周末一般干嘛, 喜欢什么运动.
 */
const ASKS_PASTIME = new RegExp(
  [
    `(?<!没|没有|没啥)(?:爱好|兴趣|业余|消遣)[^。！!]{0,8}(?:什么|啥|嘛|哪|吗)|(?<!没|没有)(?:什么|啥|哪些)(?:爱好|兴趣)|(?:平时|周末|空闲|闲下来|有空)[^?？，,]{0,4}(?:做|干|玩|搞)(?:什么|啥|嘛)`,
    `喜欢(?:做|干|玩|搞)(?:什么|啥|嘛)|(?:什么|啥|哪些)运动`,
  ].join("|"),
  "u",
);

/** Chinese questions asking what someone likes to eat: 爱吃什么, 最喜欢的菜, 口味, 点什么菜好, 最爱的食物. */
const ASKS_FOOD =
  /(?:爱|喜欢|想|能|不)吃(?:什么|啥|哪)|(?:菜|食物|美食|口味|吃的)(?:是|有)?(?:什么|啥|哪)|口味[^?？]{0,4}(?:偏|爱|喜欢)|(?:什么|啥)(?:菜|口味|吃的|食物)|(?:最爱|最喜欢|爱吃)的(?:食物|菜|美食)|点(?:什么|啥)(?:菜)?好|忌口/u;

/** Not 几: "你几岁了？" stored in the memory asks an age, it holds none. */
const NUMERALS = "零〇一二两三四五六七八九十百千万半";
/** A run of Chinese numerals, from where it starts, at most six long. */
const CN_NUMERAL = `(?<![${NUMERALS}])[${NUMERALS}]{1,6}`;
/** The same, but not a lone 一 or 半 ("一个人", "一天到晚", "半天": everywhere in chat, no count). */
const CN_COUNT = `(?<![${NUMERALS}])(?![一半](?![${NUMERALS}]))[${NUMERALS}]{1,6}`;
const DIGITS = String.raw`(?<!\d)\d{1,4}`;
const MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december";
const MONTHS_SHORT = "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec";
const WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
const NUMBER_WORDS =
  "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety";

/**
 * A time or date: calendar dates, times of day, weekdays, days and periods relative to now, parts of a
 * day, holidays. A month's name counts beside a number or after a preposition ("in May", "May 7"),
 * not alone (march, may and april are words too).
 */
const HOLDS_TIME = new RegExp(
  [
    String.raw`${DIGITS}\s*(?:[年月日]|号(?![线楼]))|${CN_NUMERAL}[月日号]|${DIGITS}\s*点(?:钟|半|\d)?|(?<!\d)\d{1,2}:\d{2}\b`,
    `(?<![每一两几这])(?:星期|礼拜|周)[一二三四五六日天末]|[上下这本]个?(?:周(?!围)|星期|礼拜|月(?![亮饼光]))`,
    `[昨前今明后]天|[去前今明]年|[上下]半年|那天|当天`,
    `早上|上午|中午|下午|傍晚|晚上|凌晨|夜里|半夜`,
    `春节|元旦|国庆|中秋|端午|清明|除夕|元宵|七夕|圣诞|寒假|暑假|假期|周末`,
    String.raw`\b(?:in|on|since|until|by|last|next|this|early|late|mid|of)\s+(?:${MONTHS})\b|\b(?:${MONTHS}|${MONTHS_SHORT})\.?\s+\d{1,2}\b|(?<!\d)\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:${MONTHS})\b`,
    String.raw`\b(?:${WEEKDAYS})s?\b|\b(?:yesterday|today|tonight|tomorrow|weekend|ago)\b`,
    String.raw`\b(?:last|next|this|past|previous|coming)\s+(?:week|month|year|weekend|night|morning|evening|afternoon|summer|winter|spring|fall|autumn|semester)\b`,
    String.raw`\b(?:19|20)\d\d\b|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b`,
    String.raw`\b\d{1,2}(?::\d{2})?\s*(?:(?:am|pm)\b|a\.m\.|p\.m\.)|\bo'clock\b`,
    String.raw`\b(?:christmas|thanksgiving|easter|halloween|new\s+year)\b`,
  ].join("|"),
  "u",
);
/**
 * An age: "三十岁", "30 years old", "two years old", "aged 30", "turned 30", "in her forties"; or what
 * gives one: a year of birth ("1990年出生", "一九九四年生人", "身份证上是1983年", "born in 1990": a
 * year from 1900 on, in digits or Chinese numerals, not an amount such as 2000块; "94年的", "八零后")
 * or a zodiac sign (属马).
 */
const HOLDS_AGE = new RegExp(
  [
    `${DIGITS}\\s*(?:周)?岁|${CN_NUMERAL}(?:周)?岁`,
    String.raw`(?<!\d)(?:19|20)\d\d(?![\d.%元块步米个件号次份张位名人])|[一二][九零〇][${NUMERALS}]{2}年|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]`,
    String.raw`(?<!\d)\d\d年(?:的|生|出生)|[九八七六五零〇][九八七六五零〇]年(?:的|生|出生)|[五六七八九零〇][零〇]后|(?<!\d)[05-9]0后|生于[\d${NUMERALS}]{2,4}`,
    String.raw`\b(?:\d{1,3}|${NUMBER_WORDS})[\s-]*(?:years?|yrs?)[\s-]*old\b|\baged?\s+\d{1,3}\b|\bturn(?:ed|s|ing)?\s+\d{1,3}\b|\b\d{1,3}(?:st|nd|rd|th)\s+birthday\b`,
    String.raw`\b(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b`,
  ].join("|"),
  "u",
);
/**
 * An occupation, in Chinese: a word ending in 师 or 员, the suffixes of most trades (工程师, 药剂师, 快递员,
 * 公务员, 运动员, 销售人员), but not a member, a staff or a teacher's school (会员, 成员, 党员, 动员, 一员,
 * 全体人员, 员工, 师范, 师傅, 师兄, 师大, 师生, 出师); or one of the common trades without them (医生, 护士,
 * 会计, 司机, 警察, 记者 …).
 */
const HOLDS_OCCUPATION = new RegExp(
  [
    String.raw`(?<=\p{sc=Han})(?<![成会满全党团减裁超社学队一])(?<!(?<!运)动)(?<![体关杂]人)员(?!工)|(?<=\p{sc=Han})(?<![出誓会兴])师(?![范傅父兄姐弟妹大生])`,
    `医生|护士|会计|司机|警察|记者|教授|老板|经理|主管|总监|骑手|电工|保安|保姆|教练|导游|主播|作家|画家|歌手|军人|农民|工人|厨子|模特|店长|校长|院长`,
  ].join("|"),
  "u",
);

/**
 * A workplace, in Chinese: working somewhere (在…上班, 在…工作, 在…当…, 就职于, 跳槽去了, 是…的员工,
 * 单位是) or an organisation's name by its last word (…公司, …医院, …银行, …事务所, …局; not 格局, 饭局).
 */
const HOLDS_WORKPLACE = new RegExp(
  [
    String.raw`在\p{sc=Han}[^，。,.!?！？；;\s]{0,15}?(?:上班|工作|任职|实习|当(?!时|天|地|然|初)|做(?![饭菜梦])|干(?=[。！!，,~]|$))`,
    `(?:就职|供职|任职|受雇)于|跳槽(?:去|到)|的(?:员工|职员)|(?:工作)?单位(?:是|在)|入职`,
    `公司|医院|银行|集团|事务所|研究院|设计院|研究所|电视台|报社|幼儿园|(?<![格结布饭牌赌当])局(?![面势部限])`,
  ].join("|"),
  "u",
);

/**
 * A height, in Chinese: 165cm, 一米七, 1.75米 (or a building's 100米: 多高 asks that too), or the words
 * that state one (身高, 个子, 个头). Not 米饭, 米粉.
 */
const HOLDS_HEIGHT = new RegExp(
  [
    String.raw`(?<!\d)\d{2,3}\s*(?:cm|厘米|公分)|(?<![\d.])\d+(?:\.\d+)?\s*米(?![饭粉线色酒])|一米[一二三四五六七八九]|[一1]米\d`,
    `身高|个子|个头`,
  ].join("|"),
  "u",
);

/**
 * A pet, in Chinese: the animals people keep (猫, 狗, 兔, 鹦鹉, 仓鼠, 乌龟, 金鱼 …) and the breeds most
 * often named without them (柯基, 泰迪, 比熊, 英短, 布偶, 哈士奇, 金毛, 边牧, 柴犬 …). Not a fish to eat.
 */
const HOLDS_PET =
  /宠物|猫|狗|犬|兔|鹦鹉|仓鼠|龟|金鱼|热带鱼|鱼缸|鸟|蜥蜴|刺猬|龙猫|柯基|泰迪|比熊|英短|美短|布偶|暹罗|哈士奇|金毛|边牧|柴犬|萨摩|拉布拉多|博美|雪纳瑞/u;

/**
 * An event, in Chinese: a gathering by its last word (年会, 聚会, 读书会, 发布会; not 机会, 社会, 开会
 * as a verb), a festival of a place or a kind (邻里节, 音乐节; not 细节, 季节, 节目), a party, a
 * wedding, a match, a show, a trip, an outing; or 活动 itself.
 */
const HOLDS_EVENT = new RegExp(
  [
    `(?<![今明去每前后])年会|(?:聚|晚|舞|茶话|联欢|运动|音乐|演唱|读书|同学|发布|展|博览|研讨|座谈|见面|分享|交流|庙|家长|生日|答谢|表彰)会|会议`,
    `(?<=\\p{sc=Han})(?<![细季关章环情礼调过时音使脱气第一二两三四五六七八九十几双])节(?![目约省奏拍日假课食制点能气])`,
    `派对|party|团建|聚餐|饭局|牌局|酒局|桌游|婚礼|婚宴|喜宴|寿宴|满月酒|典礼|仪式|庆典|比赛|球赛|马拉松|联赛|画展|车展|漫展|展览|演出|话剧|讲座|培训|夏令营|露营|旅行|旅游|徒步|郊游|野餐|活动`,
  ].join("|"),
  "u",
);

/** A spouse, in Chinese: marrying (嫁给, 娶, 结婚, 领证) or the words for a husband or a wife (老婆, 先生, 爱人). */
const HOLDS_SPOUSE =
  /嫁|娶|老婆|老公(?!司)|妻子|丈夫|太太|(?<=[她我你的])先生|爱人|配偶|媳妇|另一半|结婚|结了婚|领证|新娘|新郎|夫妻|两口子|未婚[夫妻]/u;

/**
 * A pastime, in Chinese: the common sports and pastimes (游泳, 篮球, 摄影, 书法, 钓鱼, 追剧, 广场舞, 弹吉他 …)
 * or the words that say one is taken up (迷上, 一有空就). Not 爱好 or 兴趣: the question asks with them, so
 * other people's "…的爱好是…" lines hold its word already, and the lift would double it.
 */
const HOLDS_PASTIME = new RegExp(
  [
    `迷上|热衷|有空就(?![来去过])|没事就(?![好行])`,
    `游泳|跑步|健身|瑜伽|[篮足排网羽乒]球|台球|高尔夫|骑行|骑车|爬山|登山|徒步|露营|钓鱼|滑雪|滑冰|轮滑|攀岩|冲浪|潜水|太极|马拉松`,
    `摄影|拍照|书法|练字|画画|绘画|素描|唱歌|k歌|跳舞|广场舞|舞蹈|吉他|钢琴|小提琴|古筝|二胡|乐器|追剧|电影|看书|读书|阅读|小说`,
    `下棋|象棋|围棋|麻将|打牌|桌游|游戏|旅游|旅行|烘焙|做饭|养花|园艺|插花|收藏|集邮|手工|编织|十字绣|逛街|看球`,
  ].join("|"),
  "u",
);

/**
 * A dish or a food, in Chinese: what names one by its last character or word (…菜, …饭, …面, …粉, …锅,
 * …汤, …肉, 排骨, 饺子, 寿司, 披萨 …), or 好这口. Not 吃 or 口味, which the question asks with.
 */
const HOLDS_FOOD = new RegExp(
  [
    `好这口|[饭粥饼肉虾蟹鸭]|菜(?!鸟|单)|(?<![方前后里外见表上下对全正反侧体当会路地桌页封画场局版字])面(?!试|子|前|对|临|积|貌|孔|膜)|粉(?!丝|色|红|刷|笔|底|末)|(?<!背)锅|汤(?!姆)|(?<![钓金])鱼(?!缸)|鸡(?!毛|皮)|串(?!门)|排骨|饺子|包子|馄饨|寿司|披萨|汉堡|炸鸡|烧烤|烤鸭|火锅|甜品|蛋糕|水果|零食|奶茶|咖啡|小笼包|肠粉|麻辣烫|螺蛳粉`,
  ].join("|"),
  "u",
);

/** A number: digits, a Chinese count before a measure word, an English number word from two up. */
const HOLDS_NUMBER = new RegExp(
  [
    String.raw`\d`,
    `${CN_COUNT}(?:[个次位名本只辆套件条张家口天年岁月周遍回场种门双块元层台间部首倍斤米里]|小时|分钟|公里|公斤)`,
    String.raw`\b(?:${NUMBER_WORDS.replace("one|", "")}|hundred|thousand|million|dozen|twice)\b`,
  ].join("|"),
  "u",
);

/**
 * The kinds a question may ask, tried in this order (the first found is the kind): age before number
 * ("多大" and "how old" ask both), time before number ("how long ago"), height before number ("身高多少"
 * asks a height, which a line of any digits need not hold).
 */
const ASKED: readonly (readonly [AnswerType, RegExp])[] = [
  ["age", ASKS_AGE],
  ["time", ASKS_TIME],
  ["height", ASKS_HEIGHT],
  ["number", ASKS_NUMBER],
  ["pet", ASKS_PET],
  ["workplace", ASKS_WORKPLACE],
  ["occupation", ASKS_OCCUPATION],
  ["event", ASKS_EVENT],
  ["spouse", ASKS_SPOUSE],
  ["place", ASKS_PLACE],
  ["pastime", ASKS_PASTIME],
  ["food", ASKS_FOOD],
];

/** What a text holding a value of each kind matches (a place is looked up: holdsPlace). */
const HOLDS: Readonly<Record<Exclude<AnswerType, "place">, RegExp>> = {
  time: HOLDS_TIME,
  age: HOLDS_AGE,
  number: HOLDS_NUMBER,
  height: HOLDS_HEIGHT,
  occupation: HOLDS_OCCUPATION,
  workplace: HOLDS_WORKPLACE,
  pet: HOLDS_PET,
  event: HOLDS_EVENT,
  spouse: HOLDS_SPOUSE,
  pastime: HOLDS_PASTIME,
  food: HOLDS_FOOD,
};

/**
 * The kind of value a query asks for, read from its last sentence, when the query is one sentence or
 * ends with a question (a pasted dialogue's last line is not necessarily what is asked).
 */
export function questionAnswerType(query: string): AnswerType | undefined {
  const { sentence, question, single } = lastSentence(query);
  if (!question && !single) return undefined;
  const asked = normalizeSearchText(sentence);
  return ASKED.find(([, asks]) => asks.test(asked))?.[0];
}

/** Longest place name looked up (齐齐哈尔, 乌鲁木齐). */
const MAX_PLACE_LENGTH = 4;

/** A city or a province CC-CEDICT names (bilingual-dictionary.ts), as a word of the text. */
function holdsPlace(text: string): boolean {
  const dictionary = bilingualDictionary();
  const isWord = (word: string) => dictionary.isPlace(word) || dictionary.english(word) !== undefined;
  // Read word by word, the longest headword first, so that a place's name inside another word is not
  // one (三明治 is no 三明, 结合肥料 holds no 合肥).
  for (const run of text.match(/\p{sc=Han}{2,}/gu) ?? []) {
    for (let i = 0; i < run.length;) {
      let length = Math.min(Math.max(MAX_PLACE_LENGTH, dictionary.maxWordLength), run.length - i);
      while (length > 1 && !isWord(run.slice(i, i + length))) length--;
      if (length > 1 && dictionary.isPlace(run.slice(i, i + length))) return true;
      i += length;
    }
  }
  return false;
}

/** Whether a (normalized) text holds a value of the kind asked for. */
export const holdsAnswerType = (type: AnswerType, normalizedText: string): boolean =>
  type === "place" ? holdsPlace(normalizedText) : HOLDS[type].test(normalizedText);
