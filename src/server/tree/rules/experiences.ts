import { fact, itemFrom, phrase, type Family } from "./common";

// What the user did, made or got, in the first person and the past ("I went to a support group
// yesterday", "I just finished my first marathon", "we adopted a puppy", "I painted a sunrise").
const VERBS =
  "went to|attended|joined|started|began|finished|completed|ran|won|lost|adopted|bought|got|received|painted|drew|wrote|made|built|baked|cooked|visited|volunteered|signed up for|signed|took|learned|taught|performed|played|read|watched|met|celebrated|organized|hosted|created|launched|published|graduated|passed|failed|moved|quit|retired|picked up|tried|scored|emailed|had|found|spent|traveled|travelled|flew|hiked|opened|designed|recorded|released|gave|donated|helped|landed|earned|saved|sold|fixed|planted|grew|climbed|camped|explored|discovered|reached|achieved|lead|led";
// "I went …", "Last week I scored …", "We adopted …", or no subject at all as people chat
// ("Lost my job as a banker yesterday", "Just finished my first marathon").
const DID_EN = new RegExp(
  `(?:^|[,;]\\s*|\\b(?:I|we|We)\\s+(?:just |recently |finally |also |actually |already |even |once )?)(${VERBS})\\s+(?!it\\b|that\\b|this\\b|them\\b|you\\b|to say\\b|so\\b|there\\b|back to you\\b|a chance\\b|a (?:great|good|nice|lovely) time\\b)(.{3,100})`,
  "i",
);
// "I'm starting a dance studio", "I've been volunteering at the shelter", "I'm working on a fan project".
const DOING_EN =
  /\b(?:I'm|I am|I've been|I have been|we're|we are|we've been|Been|Still) (?:now |currently |still |also |really )?((?:starting|working on|building|writing|learning|training for|taking|studying|volunteering|saving for|looking for|searching for|renovating|painting|making|creating|organizing|running|teaching|coaching|raising|fostering|practicing|practising|preparing for|on the hunt for|following|discussing|exploring|thinking of|getting into|collecting|reading|playing)\b.{3,100})/i;
const DID_ZH =
  /我(?:们)?(?:刚|刚刚|最近|昨天|上周|上个月|今天|终于|已经)?(?:去了|参加了|完成了|买了|学会了|开始了|报名了|养了|领养了|画了|写了|做了|搬到了|换了|拿到了|考上了|通过了)([\u4e00-\u9fffA-Za-z0-9]{2,20})/;
const WHEN =
  /\b(?:yesterday|today|last (?:week|weekend|month|year|night|summer|winter|spring|fall)|this (?:week|weekend|month|year|morning)|recently|a (?:few|couple of) (?:days|weeks|months|years) ago|\d+ (?:days|weeks|months|years) ago|in (?:19|20)\d{2})\b|昨天|上周|上个月|去年|今天|最近/i;

/** Experiences: what the user did, made or got, with when it happened if the sentence says. */
export const experiences: Family = (s) => {
  const zh = /[\u4e00-\u9fff]/.test(s.text);
  if (zh) {
    const m = s.text.match(DID_ZH);
    const what = m ? phrase(m[1]!, 40) : "";
    const item = itemFrom("did", what);
    if (!m || !item || what.length < 2) return [];
    const when = s.text.match(WHEN)?.[0];
    return [
      fact(s, "custom_fact", {
        itemKey: item,
        title: `做过：${what}`,
        value: when ? { what, when } : what,
        tags: ["event"],
      }),
    ];
  }
  // A question asks about the other person ("Did you go …?"); a sentence to "you" is about them.
  if (/\?\s*$/.test(s.text)) return [];
  const did = s.text.match(DID_EN);
  const doing = did ? null : s.text.match(DOING_EN);
  if (!did && !doing) return [];
  const verb = did ? did[1]!.toLowerCase() : "";
  const what = phrase(did ? did[2]! : doing![1]!, 90);
  const said = `${verb} ${what}`.trim();
  const item = itemFrom(did ? "did" : "doing", said);
  if (!item || what.length < 3 || said.split(/\s+/).length < 3) return [];
  const when = s.text.match(WHEN)?.[0];
  return [
    fact(s, "custom_fact", {
      itemKey: item,
      title: `${said[0]!.toUpperCase()}${said.slice(1)}`,
      value: when ? { what: said, when } : said,
      tags: ["event"],
    }),
  ];
};
