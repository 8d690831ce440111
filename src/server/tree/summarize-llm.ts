import { z } from "zod";
import type { MemoryMessage, MemorySummary } from "~/db/schema";
import { parseJsonObject, type LlmClient } from "~/server/providers/llm";

const MAX_LIST = 8;
const item = z.string().trim().min(1).max(200);
const list = z
  .array(item)
  .max(MAX_LIST * 2)
  .transform((items) => items.slice(-MAX_LIST))
  .default([]);

const answerSchema = z.object({
  summary: z.string().trim().min(1).max(2000),
  currentGoal: item.nullish().transform((goal) => goal ?? null),
  constraints: list,
  preferences: list,
  decisions: list,
  completedWork: list,
  pendingWork: list,
  knownIssues: list,
});

export type SummaryIncrement = z.output<typeof answerSchema>;

/**
 * The session's summary chain (docs/memory-model.md) written by a model: the previous summary plus
 * the new messages only, as a goal / decisions / completed / pending structure in the conversation's
 * language. Throws when the model fails or answers out of shape; the caller keeps the extractive summary
 * then.
 */
export async function llmSummaryIncrement(
  llm: LlmClient,
  previous: MemorySummary | undefined,
  messages: Pick<MemoryMessage, "role" | "content">[],
): Promise<SummaryIncrement> {
  const before = previous
    ? JSON.stringify({
        summary: previous.summary,
        currentGoal: previous.currentGoal,
        constraints: previous.constraints,
        preferences: previous.preferences,
        decisions: previous.decisions,
        completedWork: previous.completedWork,
        pendingWork: previous.pendingWork,
        knownIssues: previous.knownIssues,
      })
    : "none yet";
  const transcript = messages
    .map((m) => `[${m.role}] ${m.content}`)
    .join("\n")
    .slice(0, 12_000);
  const answer = await llm.complete(
    [
      {
        role: "system",
        content:
          "You keep the running summary of one conversation. From the previous summary and the new messages only, return the next summary as JSON " +
          '{"summary": string (at most 120 words), "currentGoal": string|null, "constraints": [], "preferences": [], "decisions": [], "completedWork": [], "pendingWork": [], "knownIssues": []} ' +
          `(each list at most ${MAX_LIST} short items; keep earlier items that still hold, drop what the new messages settled or reversed). Keep names, numbers and dates. Write in the conversation's language. Never add facts that are not in the input.`,
      },
      { role: "user", content: `Previous summary: ${before}\n\nNew messages:\n${transcript}` },
    ],
    { json: true },
  );
  return answerSchema.parse(parseJsonObject(answer));
}
