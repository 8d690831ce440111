import { fact, itemFrom, phrase, type Family } from "./common";

const JOBS =
  "engineer|developer|programmer|teacher|professor|nurse|doctor|physician|surgeon|dentist|therapist|counselor|counsellor|social worker|artist|painter|musician|singer|writer|author|journalist|designer|architect|student|manager|lawyer|attorney|chef|cook|baker|scientist|researcher|photographer|consultant|accountant|analyst|entrepreneur|founder|pharmacist|firefighter|police officer|pilot|mechanic|electrician|plumber|carpenter|farmer|librarian|barista|waiter|waitress|cashier|salesperson|marketer|dancer|actor|actress|athlete|coach|trainer|volunteer|intern|veterinarian|vet";
const JOB_EN = new RegExp(
  `\\b(?:I'm|I am|I work as|I've been working as|I became|I'm now|I am now)(?: a| an)?((?: [a-z-]+){0,2}? (?:${JOBS}))\\b`,
  "i",
);
const WORK_AT_EN =
  /\bI (?:work|am working|'m working|started working|just started working|just started|got a job|landed a job|got hired) (?:at|for|in|with) ((?:a |an |the )?[A-Za-z][\w&' -]{2,50})/i;
const STUDY_EN =
  /\bI(?:'m| am)? (?:studying|majoring in|taking (?:a |some )?(?:class|course|classes|courses|program) (?:in|on)|enrolled in|going back to school for|doing (?:a|my) (?:degree|masters?|phd|bachelor'?s?) in|graduated (?:from|in|with)|study|studied) ((?:a |an |the )?[A-Za-z][\w&' -]{2,60})/i;
const JOB_ZH =
  /我(?:是|做|当)(?:一名|一个|个)?([\u4e00-\u9fff]{0,4}(?:程序员|工程师|老师|教师|医生|护士|学生|研究生|博士生|设计师|律师|会计|产品经理|经理|销售|厨师|记者|作家|画家|摄影师|司机|警察|公务员|创业者|研究员))/;
const WORK_AT_ZH = /我在([\u4e00-\u9fffA-Za-z0-9]{2,12}?)(?:工作|上班|实习|任职)/;
const STUDY_ZH = /我(?:在|正在)?(?:读|学|念|攻读|研究)([\u4e00-\u9fff]{2,10}?)(?:专业|课程|学位|$|[，。！,.!])/;

/** Jobs and studies: what the user does for a living, where, and what they study. */
export const work: Family = (s) => {
  const ops = [];
  const zh = /[\u4e00-\u9fff]/.test(s.text);
  const job = zh ? s.text.match(JOB_ZH) : s.text.match(JOB_EN);
  // "I work as a nurse at the city hospital": the employer after the job.
  const at = zh
    ? s.text.match(WORK_AT_ZH)
    : (s.text.match(WORK_AT_EN) ??
      (job
        ? s.text.slice(job.index! + job[0].length).match(/^\s+(?:at|for|with) ((?:a |an |the )?[A-Za-z][\w&' -]{2,50})/)
        : null));
  if (job) {
    const title = job[1]!.trim().toLowerCase();
    ops.push(
      fact(s, "occupation", {
        title: zh ? `职业：${title}` : `Works as ${title}`,
        value: at ? { title, employer: phrase(at[1]!, 50) } : title,
        tags: ["work"],
      }),
    );
  } else if (at) {
    const employer = phrase(at[1]!, 50);
    ops.push(
      fact(s, "occupation", {
        title: zh ? `在${employer}工作` : `Works at ${employer}`,
        value: { employer },
        entities: [employer],
        tags: ["work"],
      }),
    );
  }
  const study = zh ? s.text.match(STUDY_ZH) : s.text.match(STUDY_EN);
  if (study) {
    const what = phrase(study[1]!, 60);
    const item = itemFrom("studies", what);
    if (item)
      ops.push(
        fact(s, "custom_fact", {
          itemKey: item,
          title: zh ? `在学${what}` : `Studies ${what}`,
          value: what,
          tags: ["studies"],
        }),
      );
  }
  return ops;
};
