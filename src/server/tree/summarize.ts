import type { MemoryMessage, MemorySummary } from "~/db/schema";

/** Every this many new messages (or tokens), the session's summary chain gets its next node (000). */
export const SUMMARY_EVERY_MESSAGES = 10;
export const SUMMARY_EVERY_TOKENS = 3000;
const MAX_ITEMS = 8;

const sentences = (text: string) => text.split(/(?<=[。！？!?.;；])\s*|\n+/).map((s) => s.trim()).filter((s) => s.length > 1);

const CLASSES: { field: "constraints" | "preferences" | "decisions" | "completedWork" | "pendingWork" | "knownIssues"; pattern: RegExp }[] = [
  { field: "constraints", pattern: /必须|不要|不能|禁止|务必|只能|\bmust\b|\bnever\b|\bdon'?t\b|\bdo not\b|\bonly\b/i },
  { field: "preferences", pattern: /喜欢|偏好|更想|讨厌|\bprefer|\blike\b|\blove\b|\bhate\b/i },
  { field: "decisions", pattern: /决定|确定|就用|选定|\bdecided?\b|\bwe(?:'ll| will) (?:use|go with)\b|\bagreed\b/i },
  { field: "completedWork", pattern: /完成了|已完成|搞定|做好了|解决了|\bdone\b|\bcompleted\b|\bfixed\b|\bshipped\b|\bfinished\b/i },
  { field: "pendingWork", pattern: /待办|还要|接下来|下一步|之后再|\btodo\b|\bnext step\b|\bstill need\b|\bwill need\b|\blater\b/i },
  { field: "knownIssues", pattern: /bug|报错|问题|异常|失败|\berror\b|\bissue\b|\bfails?\b|\bbroken\b/i },
];

/**
 * The next summary from the previous one plus the new messages only (never the whole history):
 * carried-over items stay unless the new messages replace them, lists stay bounded. Extractive, so it
 * works without a model and never invents facts.
 */
export function summarizeIncrement(previous: MemorySummary | undefined, messages: Pick<MemoryMessage, "role" | "content">[]) {
  const fields = {
    constraints: [...(previous?.constraints ?? [])],
    preferences: [...(previous?.preferences ?? [])],
    decisions: [...(previous?.decisions ?? [])],
    completedWork: [...(previous?.completedWork ?? [])],
    pendingWork: [...(previous?.pendingWork ?? [])],
    knownIssues: [...(previous?.knownIssues ?? [])],
  };
  let currentGoal = previous?.currentGoal ?? null;
  for (const message of messages) {
    for (const sentence of sentences(message.content)) {
      const clipped = sentence.slice(0, 200);
      for (const { field, pattern } of CLASSES) {
        if (!pattern.test(sentence) || fields[field].includes(clipped)) continue;
        fields[field].push(clipped);
        if (fields[field].length > MAX_ITEMS) fields[field].shift();
      }
    }
    if (message.role === "user" && /[?？]|帮我|请|我想|我要|\bhelp me\b|\bi want\b|\bi need\b|\bcan you\b/i.test(message.content)) {
      currentGoal = message.content.trim().slice(0, 200);
    }
  }
  const done = new Set(fields.completedWork);
  fields.pendingWork = fields.pendingWork.filter((p) => !done.has(p));
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const parts = [
    previous ? previous.summary.split("\n")[0]!.slice(0, 400) : null,
    currentGoal ? `Goal: ${currentGoal}` : null,
    lastUser ? `Latest from user: ${lastUser.content.trim().slice(0, 200)}` : null,
    `${messages.length} new message(s).`,
  ].filter(Boolean);
  return { summary: parts.join("\n"), currentGoal, ...fields };
}
