import { fact, itemFrom, phrase, type Family } from "./common";

// A goal the user works towards: one long_term_goal card (the newest replaces it).
const GOAL_EN =
  /\b(?:my|our) (?:main |big |ultimate |long-term |real )?(?:goal|dream|aim|mission) (?:is|was) (?:to )?(.{4,120})/i;
const GOAL_WORKING_EN = /\b(?:I'm|I am|we're|we are) working (?:towards?|on becoming|hard to) (.{4,120})/i;
const GOAL_ZH = [
  /我(?:们)?的(?:目标|梦想|愿望)(?:是|就是)(.{2,40})/,
  /我(?:们)?(?:正)?在(?:做|规划|准备|筹划)([\u4e00-\u9fff]{2,15}?计划|[\u4e00-\u9fff]{2,15}?(?:旅行|旅游|婚礼|装修|创业|考试|项目))/,
];
// Intentions: one card per plan.
const PLAN_EN =
  /\b(?:I'm|I am|we're|we are|I've been|we've been) (?:planning|going|hoping|thinking about|looking to|about|getting ready|gonna|aiming|considering|excited) to (?!be\b|say\b|tell\b|ask\b)(.{4,120})|\b(?:I|we) (?:plan|intend|hope|want|need|would like|'d like) to (?!be\b|say\b|tell\b|ask\b|know\b|hear\b|see how\b)(.{4,120})|\b(?:I'm|I am|we're|we are) (?:thinking of|considering) ((?:\w+ing)\b.{2,120})/i;
const PLAN_ZH = /我(?:们)?(?:打算|计划|准备|想要|希望|决定要|要去|想去)([\u4e00-\u9fffA-Za-z0-9]{2,30})/;

/** The goal a sentence states ("my goal is …", "我们在做…计划"), or null. */
export function goalOf(text: string): string | null {
  const zh = /[\u4e00-\u9fff]/.test(text);
  const goal = zh
    ? GOAL_ZH.map((p) => text.match(p)).find(Boolean)
    : (text.match(GOAL_EN) ?? text.match(GOAL_WORKING_EN));
  const what = goal ? phrase(goal[1]!, 120) : "";
  return what.length > 1 ? what : null;
}

/** Plans and goals: the goal the user works towards, and what they intend to do. */
export const plans: Family = (s) => {
  const ops = [];
  const zh = /[\u4e00-\u9fff]/.test(s.text);
  const goal = goalOf(s.text);
  if (goal)
    ops.push(fact(s, "long_term_goal", { title: zh ? `目标：${goal}` : `Goal: ${goal}`, value: goal, tags: ["goal"] }));
  const plan = zh ? s.text.match(PLAN_ZH) : s.text.match(PLAN_EN);
  if (plan && !goal) {
    const what = phrase(plan[1] ?? plan[2] ?? plan[3] ?? "", 100);
    const item = itemFrom("plan", what);
    if (item && what.length > 2)
      ops.push(
        fact(s, "custom_fact", {
          itemKey: item,
          title: zh ? `打算${what}` : `Plans to ${what}`,
          value: what,
          tags: ["plan"],
        }),
      );
  }
  return ops;
};
