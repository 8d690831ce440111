import { familyOperations } from "./rules";
import { sentencesOf } from "./rules/common";
import { goalOf } from "./rules/plans";

/** The list fields of a session summary (docs/memory-tree.md, `summarize`), filled offline by patterns. */
export type SummaryLists = {
  constraints: string[];
  preferences: string[];
  decisions: string[];
  completedWork: string[];
  pendingWork: string[];
  knownIssues: string[];
};

export const LIST_FIELDS = [
  "constraints",
  "preferences",
  "decisions",
  "completedWork",
  "pendingWork",
  "knownIssues",
] as const;

const CLASSES: { field: keyof SummaryLists; pattern: RegExp }[] = [
  {
    field: "constraints",
    pattern:
      /必须|不要|不能|禁止|务必|只能|不超过|最多|至少|预算|截止|\bmust\b|\bnever\b|\bcan'?t\b|\bcannot\b|\bdon'?t\b|\bdo not\b|\bonly\b|\bno more than\b|\bat most\b|\bbudget\b|\bdeadline\b/i,
  },
  {
    field: "preferences",
    pattern:
      /喜欢|偏好|更想|讨厌|不爱|不吃|忌口|口味|\bprefer|\blove\b|\bhate\b|\bdislike|\bfavou?rite\b|\bi (?:really )?(?:like|enjoy)\b/i,
  },
  {
    field: "decisions",
    pattern:
      /决定|确定了|就用|就定|选定|定下来|\bdecided?\b|\bwe(?:'ll| will) (?:use|go with)\b|\blet'?s go with\b|\bagreed\b|\bsettled on\b|\bchose\b/i,
  },
  {
    field: "completedWork",
    pattern:
      /完成了|已完成|搞定|做好了|解决了|订好了|买好了|\bdone\b|\bcompleted\b|\bfixed\b|\bshipped\b|\bfinished\b|\bbooked\b/i,
  },
  {
    field: "pendingWork",
    pattern:
      /待办|还要|还需要|接下来|下一步|之后再|还没|要订|\btodo\b|\bto-do\b|\bnext step\b|\bstill need\b|\bwill need\b|\bhave to\b|\bneed to\b|\bplan(?:ning)? to\b|\blater\b/i,
  },
  {
    field: "knownIssues",
    pattern: /bug|报错|问题|异常|失败|崩溃|\berror\b|\bissue\b|\bfails?\b|\bfailed\b|\bbroken\b|\bcrash/i,
  },
];

/** The user asks the assistant for something: the goal when no goal was stated. */
const REQUEST =
  /帮我|请帮|请你|麻烦你|\bhelp me\b|\bcan you (?:help|please|plan|make|write|find|check)\b|\bcould you (?:help|please|plan|make|write|find|check)\b|\bi need you to\b|\bplease (?:help|make|write|find|plan|check)\b/i;

const MAX_ITEMS = 8;
const MAX_ITEM_CHARS = 160;

const normalized = (text: string) => text.toLowerCase().replace(/[\s\p{P}]+/gu, "");

/** Bigram overlap of two items: near duplicates ("第3天…" and "第4天…") count as the same. */
export function similarity(a: string, b: string): number {
  const grams = (text: string) => {
    const t = normalized(text);
    const out = new Set<string>();
    for (let i = 0; i < t.length - 1; i++) out.add(t.slice(i, i + 2));
    return out;
  };
  const x = grams(a);
  const y = grams(b);
  if (x.size === 0 || y.size === 0) return normalized(a) === normalized(b) ? 1 : 0;
  let shared = 0;
  for (const g of x) if (y.has(g)) shared++;
  return (2 * shared) / (x.size + y.size);
}

/** Words that say a task is open or done, left out when matching the two ("还要订高铁票" / "高铁票订好了"). */
const TASK_CUES =
  /接下来|还要|还需要|还没|下一步|待办|之后再|订好了|买好了|做好了|完成了|已完成|已经|搞定了?|解决了|了|\b(?:i|we)\b|\b(?:still need to|need to|have to|will need to|todo|next step|is done|are done|done|finished|completed|fixed|booked|shipped)\b/gi;

/** Whether a done item and a pending one name the same task: most of the shorter one's bigrams are in the other. */
export function sameTask(done: string, pending: string): boolean {
  const grams = (text: string) => {
    const t = normalized(text.replace(TASK_CUES, " "));
    const out = new Set<string>();
    for (let i = 0; i < t.length - 1; i++) out.add(t.slice(i, i + 2));
    return out;
  };
  const a = grams(done);
  const b = grams(pending);
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return shared / Math.min(a.size, b.size) >= 0.6;
}

function push(list: string[], item: string) {
  const clipped = item.trim().slice(0, MAX_ITEM_CHARS);
  if (!clipped || list.some((existing) => similarity(existing, clipped) >= 0.8)) return;
  list.push(clipped);
  if (list.length > MAX_ITEMS) list.shift();
}

/**
 * Facts the rule families found, said short: "预算 5万", "Plans to …". Budgets and deadlines are
 * constraints; likes and dislikes preferences; decisions decisions; plans pending work.
 */
function familyItems(sentence: string, lists: SummaryLists): Set<keyof SummaryLists> {
  const filled = new Set<keyof SummaryLists>();
  for (const op of familyOperations(sentence, { explicit: false, food: false })) {
    const item = op.itemKey ?? "";
    if (item === "budget" || item === "deadline") {
      // One budget, one deadline: a new amount replaces the one said before ("预算 5万" → "预算 8万").
      const label = op.node.title.split(" ")[0]!;
      lists.constraints = lists.constraints.filter((existing) => !existing.startsWith(`${label} `));
      push(lists.constraints, op.node.title);
      filled.add("constraints");
    } else if (item.startsWith("constraint:")) {
      push(lists.constraints, op.node.title);
      filled.add("constraints");
    } else if (item.startsWith("likes:") || item.startsWith("dislikes:") || item.startsWith("favorite:")) {
      push(lists.preferences, op.node.title);
      filled.add("preferences");
    } else if (op.kind === "durable_decision") {
      push(lists.decisions, op.node.title.replace(/^(?:Decided|决定)[:：]\s*/, ""));
      filled.add("decisions");
    } else if (item.startsWith("plan:")) {
      push(lists.pendingWork, sentence);
      filled.add("pendingWork");
    }
  }
  return filled;
}

/**
 * The next summary's goal and lists from the previous summary's and the new messages: carried-over
 * items stay (bounded), pending work leaves the list when a later message says it is done.
 */
export function summaryFields(
  previous: ({ currentGoal: string | null } & SummaryLists) | undefined,
  messages: readonly { role: string; content: string }[],
): { currentGoal: string | null } & SummaryLists {
  const lists: SummaryLists = {
    constraints: [...(previous?.constraints ?? [])],
    preferences: [...(previous?.preferences ?? [])],
    decisions: [...(previous?.decisions ?? [])],
    completedWork: [...(previous?.completedWork ?? [])],
    pendingWork: [...(previous?.pendingWork ?? [])],
    knownIssues: [...(previous?.knownIssues ?? [])],
  };
  let currentGoal = previous?.currentGoal ?? null;
  let goalStated = false;
  for (const message of messages) {
    for (const sentence of sentencesOf(message.content)) {
      if (message.role === "user") {
        const goal = goalOf(sentence);
        if (goal) {
          currentGoal = goal;
          goalStated = true;
        } else if (!goalStated && REQUEST.test(sentence)) currentGoal = sentence.slice(0, 200);
      }
      // What a rule family said short ("预算 5万", "住西湖边") is not listed again as the whole sentence.
      const filled = message.role === "user" ? familyItems(sentence, lists) : new Set<keyof SummaryLists>();
      for (const { field, pattern } of CLASSES) {
        if (!filled.has(field) && pattern.test(sentence)) push(lists[field], sentence);
      }
    }
  }
  // What a later message reports done is no longer pending.
  lists.pendingWork = lists.pendingWork.filter(
    (pending) => !lists.completedWork.some((done) => sameTask(done, pending)),
  );
  return { currentGoal, ...lists };
}
