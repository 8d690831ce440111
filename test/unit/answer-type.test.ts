import { describe, expect, it } from "vitest";
import { holdsAnswerType, questionAnswerType } from "~/server/memory/retrieval/answer-type";
import { queryTerms } from "~/server/memory/retrieval/query-terms";
import { reorderBySecondStage, SECOND_STAGE_WEIGHTS } from "~/server/memory/retrieval/second-stage";
import { normalizeSearchText } from "~/server/text/segment";

const holds = (type: Parameters<typeof holdsAnswerType>[0], text: string) =>
  holdsAnswerType(type, normalizeSearchText(text));

describe("answer type", () => {
  it("reads the kind of value a question asks for, in Chinese and English", () => {
    expect(questionAnswerType("When did Melanie paint a sunrise?")).toBe("time");
    expect(questionAnswerType("What year did John start surfing?")).toBe("time");
    expect(questionAnswerType("吴晓东是什么时候结婚的？")).toBe("time");
    expect(questionAnswerType("我表姐的生日是哪天？")).toBe("time");
    expect(questionAnswerType("How old is Caroline's daughter?")).toBe("age");
    expect(questionAnswerType("黄少华今年多大了？")).toBe("age");
    expect(questionAnswerType("再过五年顾杰多少岁？")).toBe("age");
    expect(questionAnswerType("How many pets does James have?")).toBe("number");
    expect(questionAnswerType("我表哥的身高是多少？")).toBe("height");
    expect(questionAnswerType("婚礼一共办了几天？")).toBe("number");
    // Traditional script is read as simplified.
    expect(questionAnswerType("他幾歲了？")).toBe("age");
    // The year of birth, or the zodiac sign, is asked as an age: either one answers it.
    expect(questionAnswerType("我同事孙斌磊是哪年出生的？")).toBe("age");
    expect(questionAnswerType("高俊属什么？")).toBe("age");
    expect(questionAnswerType("你表姐是几几年的？")).toBe("age");
    expect(questionAnswerType("他的生肖是什么？")).toBe("age");
    expect(questionAnswerType("他们是哪年结婚的？")).toBe("time");
    // A height, and a pet.
    expect(questionAnswerType("张怡玲有一米几？")).toBe("height");
    expect(questionAnswerType("我朋友李芳身高多少？")).toBe("height");
    expect(questionAnswerType("我小姨比一米七高还是矮，差多少厘米？")).toBe("height");
    expect(questionAnswerType("刘伟养宠物了吗？")).toBe("pet");
    expect(questionAnswerType("许鑫辉那只猫的名字是？")).toBe("pet");
    expect(questionAnswerType("他家有几只猫？")).toBe("number");
    // Two dates compared.
    expect(questionAnswerType("一年当中我外婆和邓海燕谁先过生日？")).toBe("time");
    expect(questionAnswerType("我舅舅和邓海燕谁的生日在一年里更靠前？")).toBe("time");
    expect(questionAnswerType("我和妈妈比赛谁先拼完,我赢了")).toBeUndefined();
    expect(questionAnswerType("他出生于哪里？")).toBe("place");
    expect(questionAnswerType("这件事属什么性质？")).toBeUndefined();
    // What someone does for a living, not where, and not what a thing is for.
    expect(questionAnswerType("同事李德明是做什么工作的？")).toBe("occupation");
    expect(questionAnswerType("我姨夫是干什么的？")).toBe("occupation");
    expect(questionAnswerType("胡敏的职业是什么？")).toBe("occupation");
    expect(questionAnswerType("张鹏干哪行？")).toBe("occupation");
    expect(questionAnswerType("这是干什么的？")).toBeUndefined();
    expect(questionAnswerType("你今天有什么工作要做？")).toBeUndefined();
    expect(questionAnswerType("他的职业规划是什么？")).toBeUndefined();
    expect(questionAnswerType("他是干嘛的？")).toBe("occupation");
    // Where someone works is its own kind.
    expect(questionAnswerType("王雪敏在哪里上班？")).toBe("workplace");
    expect(questionAnswerType("我婶婶肖雪是哪个公司的？")).toBe("workplace");
    expect(questionAnswerType("我大学同学余明辉供职于哪里？")).toBe("workplace");
    expect(questionAnswerType("这个是做什么用的？")).toBeUndefined();
    expect(questionAnswerType("他在做什么？")).toBeUndefined();
    // What someone does in their free time asks a pastime.
    expect(questionAnswerType("你周末干什么的时候最开心？")).toBe("pastime");
  });

  it("asks nothing of a question about a thing, a place or a person", () => {
    expect(questionAnswerType("What did Caroline adopt from the shelter?")).toBeUndefined();
    expect(questionAnswerType("刘洋送了我什么？")).toBeUndefined();
    expect(questionAnswerType("刘洋最爱吃什么？")).toBe("food");
    expect(questionAnswerType("Where does Jon live?")).toBeUndefined();
    // "when" opening a clause asks no time.
    expect(questionAnswerType("What did John's teammates give him when they met?")).toBeUndefined();
    expect(questionAnswerType("Who supports Caroline when she has a bad day?")).toBeUndefined();
    expect(questionAnswerType("When I was a kid, what was my favourite toy?")).toBeUndefined();
    expect(questionAnswerType("And when is the party?")).toBe("time");
    expect(questionAnswerType("Do you know when is the party?")).toBe("time");
    // "a few days ago", "not much to do with", "old people" ask no number, time or age.
    expect(questionAnswerType("前几天我们聊了什么？")).toBeUndefined();
    expect(questionAnswerType("这和天气没多大关系吧？")).toBeUndefined();
    expect(questionAnswerType("上了年纪的人喜欢吃什么？")).toBe("food"); // no age
    expect(questionAnswerType("上了年纪的人喜欢看什么书？")).toBeUndefined();
    expect(questionAnswerType("What is Caroline's age?")).toBe("age");
    expect(questionAnswerType("黄少华的年龄")).toBe("age");
    expect(questionAnswerType("黄少华和吴晓东谁年纪大？")).toBe("age");
    expect(questionAnswerType("Who is older, Mel or Caroline?")).toBe("age");
    expect(questionAnswerType("谁小时候住在北京？")).toBeUndefined();
    expect(questionAnswerType("这是谁的小狗？")).toBeUndefined();
    expect(questionAnswerType("谁年轻的时候去过日本？")).toBeUndefined();
    expect(questionAnswerType("这件事多重要？")).toBeUndefined();
    expect(questionAnswerType("他多少有点累吧？")).toBeUndefined();
    expect(questionAnswerType("When's your birthday, by the way?")).toBe("time");
    expect(questionAnswerType("谁对花生过敏")).toBeUndefined();
  });

  it("reads the question a query ends with, not its lead-in, and nothing from a dialogue that does not ask", () => {
    expect(questionAnswerType("哎，今天有点累。晚上加班到很晚，好累。吴晓东今年多大了？")).toBe("age");
    // The lead-in's 三公里 is no number asked: the question asks a pastime.
    expect(questionAnswerType("我昨天去了公园，跑了三公里。你最喜欢什么运动？")).toBe("pastime");
    expect(questionAnswerType("我昨天去了公园，跑了三公里。你最喜欢哪本书？")).toBeUndefined();
    expect(
      questionAnswerType("Bart: 你知道吗？我什么时候都想去。\nAssistant: 真好。\nBart: 我特别期待那天晚上！"),
    ).toBeUndefined();
    // One sentence without a question mark is what is asked.
    expect(questionAnswerType("when is the team offsite")).toBe("time");
    expect(questionAnswerType("Bart: 你什么时候去北京？")).toBe("time");
  });

  it("finds a time, an age or a number in a text, and not where there is none", () => {
    expect(holds("time", "I painted that lake sunrise last year!")).toBe(true);
    expect(holds("time", "We went on Saturday")).toBe(true);
    expect(holds("time", "My birthday is on 5/16")).toBe(true);
    expect(holds("time", "她5月16日过生日")).toBe(true);
    expect(holds("time", "他们去年秋天在杭州结婚了")).toBe(true);
    expect(holds("time", "春节回老家看了爷爷")).toBe(true);
    expect(holds("time", "We met on May 7th")).toBe(true);
    expect(holds("time", "The talk starts at 3:30 pm")).toBe(true);
    expect(holds("time", "我们下午3点见")).toBe(true);
    expect(holds("time", "The sunrise painting is my favourite")).toBe(false);
    expect(holds("time", "你最近怎么样")).toBe(false);
    expect(holds("time", "I may paint it again")).toBe(false);
    expect(holds("time", "We will march for it")).toBe(false);
    expect(holds("time", "It got 4.5 stars, maybe next time")).toBe(false);
    expect(holds("time", "这周围很安静，我每周三次去游泳")).toBe(false);
    expect(holds("time", "We saw 2 amazing shows")).toBe(false);
    expect(holds("time", "坐2号线，这个月亮真圆")).toBe(false);
    expect(holds("age", "黄少华今年三十二岁")).toBe(true);
    expect(holds("age", "My son is 7 years old")).toBe(true);
    expect(holds("age", "She is in her forties")).toBe(true);
    expect(holds("age", "Our puppy is two years old")).toBe(true);
    expect(holds("age", "He turned 30 in May")).toBe(true);
    expect(holds("age", "He has 7 cats")).toBe(false);
    // A year of birth or a zodiac sign gives an age.
    expect(holds("age", "高俊的出生年份是1996年")).toBe(true);
    expect(holds("age", "徐刚浩一九九四年生人")).toBe(true);
    expect(holds("age", "他今年五十八，属马")).toBe(true);
    expect(holds("age", "他有12345个粉丝，住在马路边")).toBe(false);
    expect(holds("age", "他是94年的，八零后")).toBe(true);
    expect(holds("height", "她163厘米的个子")).toBe(true);
    expect(holds("height", "我小姨孙雨有一米五八高")).toBe(true);
    expect(holds("height", "李龙海个头1.75米")).toBe(true);
    expect(holds("height", "今天跑了5公里，花了35块")).toBe(false);
    expect(holds("height", "这座塔有300米高")).toBe(true);
    expect(holds("height", "中午吃了2碗米饭")).toBe(false);
    expect(holds("pet", "郭海亮家的狗叫毛毛，是只比熊")).toBe(true);
    expect(holds("pet", "刘伟家里连条金鱼都没有")).toBe(true);
    expect(holds("pet", "中午吃了酸菜鱼")).toBe(false);
    expect(holds("age", "花了2000块，走了2000步")).toBe(false);
    expect(holds("occupation", "我同事李德明干快递员这一行好多年了")).toBe(true);
    expect(holds("occupation", "张若曦是电气工程师")).toBe(true);
    expect(holds("occupation", "现在是电工。")).toBe(true);
    expect(holds("occupation", "邓海燕的工作是公交司机")).toBe(true);
    expect(holds("occupation", "我是健身房的会员，全体人员到齐")).toBe(false);
    expect(holds("occupation", "他在师范大学读书，跟师傅学手艺")).toBe(false);
    expect(holds("occupation", "他是运动员，做销售人员也干过")).toBe(true);
    expect(holds("occupation", "公司员工食堂，家里的一员，全校师生，出师不利")).toBe(false);
    expect(holds("workplace", "余明辉就职于中建三局。")).toBe(true);
    expect(holds("workplace", "我婶婶肖雪是顺丰的员工。")).toBe(true);
    expect(holds("workplace", "梁建国一直在育英小学干。")).toBe(true);
    expect(holds("workplace", "杨晶丹在远航软件当运营。")).toBe(true);
    expect(holds("workplace", "今天在公园散步，在家做饭，这个格局不错")).toBe(false);
    expect(holds("number", "He has 7 cats")).toBe(true);
    expect(holds("number", "我家养了三只猫")).toBe(true);
    expect(holds("number", "We adopted two dogs")).toBe(true);
    expect(holds("number", "我家有一百本书")).toBe(true);
    expect(holds("number", "我们一起去吃饭")).toBe(false);
    expect(holds("number", "我一个人在家，忙了半天，一家人都出去了")).toBe(false);
    expect(holds("number", "fifteen people came")).toBe(true);
    expect(holds("number", "the couple next door")).toBe(false);
    // A question stored in the memory asks for a value, it holds none.
    expect(holds("age", "你孩子几岁了？")).toBe(false);
    expect(holds("time", "你几号回来？")).toBe(false);
    expect(holds("number", "你家有几个孩子？")).toBe(false);
    expect(holds("number", "the one I liked")).toBe(false);
  });

  it("reads which event, whom someone married, where, a pastime or a food, and finds each in a text", () => {
    expect(questionAnswerType("孙浩参加过哪些活动？")).toBe("event");
    expect(questionAnswerType("小林也去了的那次活动叫什么来着？")).toBe("event");
    expect(questionAnswerType("我参加的活动里哪些有王芳？")).toBe("event");
    // Two occasions compared ask what is compared, not which event.
    expect(questionAnswerType("年会和读书会哪个人更多？")).toBeUndefined();
    expect(questionAnswerType("篮球赛和她的生日聚会哪个在前？")).toBe("time");
    expect(questionAnswerType("春节家宴是星期几？")).toBe("time");
    expect(questionAnswerType("他每周几次去游泳？")).toBe("number");
    expect(questionAnswerType("这两个方案哪个先做？")).toBeUndefined();
    expect(questionAnswerType("电饭煲和扫地机哪个先买的？")).toBe("time");
    expect(questionAnswerType("那次活动在什么时候？")).toBe("time");
    expect(questionAnswerType("你会参加吗？")).toBeUndefined();
    expect(questionAnswerType("王芳嫁给了谁？")).toBe("spouse");
    expect(questionAnswerType("黄磊娶的是谁？")).toBe("spouse");
    expect(questionAnswerType("我客户的太太叫什么名字？")).toBe("spouse");
    expect(questionAnswerType("张三结婚了吗？")).toBe("spouse");
    expect(questionAnswerType("周强籍贯是哪儿？")).toBe("place");
    expect(questionAnswerType("家里的长辈都住在哪些城市？")).toBe("place");
    expect(questionAnswerType("要去看刘燕得去哪个城市？")).toBe("place");
    // Where someone works is a workplace, not a city.
    expect(questionAnswerType("李欣每天去哪儿上班？")).toBe("workplace");
    expect(questionAnswerType("他在哪家医院上班？")).toBe("workplace");
    expect(questionAnswerType("他在哪个城市工作？")).toBe("place");
    expect(questionAnswerType("他在哪都行")).toBeUndefined();
    expect(questionAnswerType("哪里哪里，过奖了")).toBeUndefined();
    expect(questionAnswerType("我对这些没什么兴趣")).toBeUndefined();
    expect(questionAnswerType("你喜欢什么口味？")).toBe("food");
    expect(questionAnswerType("我同学孙嘉树在什么地方任职？")).toBe("workplace");
    // Where a thing was bought asks a shop, not a city.
    expect(questionAnswerType("我的运动鞋是在哪儿买的？")).toBeUndefined();
    expect(questionAnswerType("Where does Jon live?")).toBeUndefined();

    expect(questionAnswerType("彭海的兴趣是什么？")).toBe("pastime");
    expect(questionAnswerType("田月业余时间一般做什么？")).toBe("pastime");
    expect(questionAnswerType("我小姨周末一般干嘛？")).toBe("pastime");
    expect(questionAnswerType("他喜欢什么运动？")).toBe("pastime");
    expect(questionAnswerType("孙兰丽爱吃什么？")).toBe("food");
    expect(questionAnswerType("请杨芳吃饭点什么好？")).toBe("food");
    expect(questionAnswerType("张颖怡口味上偏爱什么菜？")).toBe("food");
    expect(questionAnswerType("周强杰最爱的食物是什么？")).toBe("food");
    // A description that eats is no question about food.
    expect(questionAnswerType("我那个最爱吃麻辣烫的同事的手机是什么牌子？")).toBeUndefined();

    expect(holds("event", "读书会在一月五号，去了四个人")).toBe(true);
    expect(holds("event", "部门团建上见到了老周")).toBe(true);
    expect(holds("event", "小区邻里节来了七十多人")).toBe(true);
    expect(holds("event", "周末露营是五月十号办的")).toBe(true);
    expect(holds("event", "我有机会看看社会新闻")).toBe(false);
    expect(holds("event", "细节决定成败，季节变了，看节目")).toBe(false);
    expect(holds("event", "我会去的，开会开到很晚")).toBe(false);
    expect(holds("spouse", "她先生叫周飞国")).toBe(true);
    expect(holds("spouse", "他前年娶了冯慧")).toBe(true);
    expect(holds("spouse", "他们俩去年领证了")).toBe(true);
    expect(holds("spouse", "他最近工作挺忙的")).toBe(false);
    expect(holds("place", "我的牙医是从宜昌出来的")).toBe(true);
    expect(holds("place", "她是江苏盐城人")).toBe(true);
    expect(holds("place", "他老家是齐齐哈尔的")).toBe(true);
    expect(holds("place", "他在北京安了家")).toBe(true);
    expect(holds("place", "去超市买菜，东方红，天下太平")).toBe(false);
    // A place's name inside another word is none, nor is a county's (上高, 修文).
    expect(holds("place", "三明治，哈密瓜，结合肥料，他上高中了，修文章")).toBe(false);
    expect(holds("event", "明年会好，喝酒会醉，第三节，一节车厢，双节棍")).toBe(false);
    expect(holds("spouse", "王先生您好，老公司")).toBe(false);
    expect(holds("food", "面试，这方面，见面再说，鸡毛蒜皮，鱼缸坏了，串门，粉丝很多，背锅，菜鸟，钓鱼，金鱼")).toBe(
      false,
    );
    expect(holds("pastime", "没事就好，有空就来")).toBe(false);
    expect(holds("pastime", "他家里没车，弹吉他好几年了")).toBe(true);
    expect(holds("pastime", "肯定又在健身。")).toBe(true);
    // The word the question asks with is no pastime: other people's lines naming it hold the question's word already.
    expect(holds("pastime", "宋宇航有个爱好。")).toBe(false);
    expect(holds("food", "他最喜欢吃什么都行")).toBe(false);

    expect(holds("pastime", "他拉着我走了，今天困得睁不开眼")).toBe(false);
    expect(holds("food", "一到周末就拉人去吃糖醋排骨")).toBe(true);
    expect(holds("food", "对火锅毫无抵抗力")).toBe(true);
    expect(holds("food", "他去体检了，量了身高")).toBe(false);
  });

  it("reads long texts and long queries in time that grows with their length, not its square", () => {
    const texts = (n: number) => ["一".repeat(n), "1".repeat(n), "十一".repeat(n / 2), "3:".repeat(n / 2)];
    const queries = (n: number) => [
      "你好。" + "\n".repeat(n) + "?",
      "a. B ".repeat(n / 5) + "?",
      "。".repeat(n) + "x?",
    ];
    const timed = (n: number) => {
      const started = performance.now();
      for (const text of texts(n))
        for (const type of ["time", "age", "number", "height", "occupation", "workplace", "pet"] as const)
          holds(type, text);
      for (const query of queries(n)) questionAnswerType(query);
      return performance.now() - started;
    };
    timed(1_000); // warm-up
    // The best of three of each, so that a pause of the machine does not decide.
    const small = Math.min(timed(2_000), timed(2_000), timed(2_000));
    const large = Math.min(timed(16_000), timed(16_000), timed(16_000));
    // Eight times the length: linear work takes ~8× as long, quadratic ~64×.
    expect(large).toBeLessThan(Math.max(small, 1) * 32);
    expect(large).toBeLessThan(500);
  });

  it("does not lift a line that repeats the lead-in and holds no word of the question", () => {
    const question = "今天加班到十点多。哦对，书桌哪天买的？";
    const terms = queryTerms(question);
    const df = terms.map(() => 2);
    const candidates = [
      { id: "chatter", score: 1, text: "今天加班到十点多，效率特别低。" },
      { id: "desk", score: 0.5, text: "我买的书桌8月21号到的货。" },
    ];
    const ranked = reorderBySecondStage(question, terms, df, 100, candidates);
    expect(ranked.find((r) => r.id === "chatter")!.features.answerType).toBe(0);
    expect(ranked.find((r) => r.id === "desk")!.features.answerType).toBe(1);
    // Without a lead-in a line holding a time is lifted as before, words of the question or not.
    const plain = "书桌哪天买的？";
    const alone = reorderBySecondStage(
      plain,
      queryTerms(plain),
      queryTerms(plain).map(() => 2),
      100,
      candidates,
    );
    expect(alone.map((r) => r.features.answerType)).toEqual([1, 1]);
  });

  it("lifts, in the second stage, the candidate holding the kind asked for, and only for that kind", () => {
    const question = "吴晓东多大了？";
    const terms = queryTerms(question);
    const df = terms.map(() => 2);
    const candidates = [
      { id: "job", score: 1, text: "吴晓东是医生，今天下雨。" },
      { id: "age", score: 0.9, text: "吴晓东三十二岁了。" },
    ];
    const lifted = reorderBySecondStage(question, terms, df, 100, candidates);
    expect(lifted.map((r) => r.id)).toEqual(["age", "job"]);
    expect(lifted.map((r) => r.features.answerType)).toEqual([1, 0]);
    const off = reorderBySecondStage(question, terms, df, 100, candidates, { ...SECOND_STAGE_WEIGHTS, answerType: 0 });
    expect(off.map((r) => r.id)).toEqual(["job", "age"]);
  });
});
