/**
 * A scripted "model" for the framework adapter tests: it decides the next step of a turn from what a
 * real model would see (the system prompt, the user's message, the tool results so far), so each
 * framework's own runtime carries the tool calls and their results both ways. It is our stand-in
 * for the chat model (outside the project), never for the memory service.
 */
export type ScriptedView = { system: string; user: string; toolResults: { name: string; result: unknown }[] };
export type ScriptedStep = { toolCall: { name: string; args: Record<string, unknown> } } | { text: string };

const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
};

type Hit = { id: string; title: string; revision: number };
const hitsOf = (result: unknown): Hit[] => {
  const r = parsed(result) as { exact?: Hit[]; relevant?: Hit[] };
  return [...(r.exact ?? []), ...(r.relevant ?? [])];
};

/** The three turns every adapter test plays: remember, recall (a later turn), forget without intent. */
export const TURNS = {
  remember: "Remember that I am allergic to peanuts.",
  recall: "Can I eat satay tonight?",
  forget: "Forget my peanut allergy.",
} as const;

export function scriptedStep(view: ScriptedView): ScriptedStep {
  const last = view.toolResults.at(-1);
  const lastResult = last ? (parsed(last.result) as Record<string, unknown>) : undefined;
  if (view.user === TURNS.remember) {
    if (!last) {
      return {
        toolCall: {
          name: "memory_write",
          args: {
            operations: [
              {
                op: "create",
                kind: "food_avoidance",
                itemKey: "peanuts",
                explicitUserIntent: true,
                node: { title: "Peanut allergy", content: "The user is allergic to peanuts.", valueJson: "peanuts" },
              },
            ],
          },
        },
      };
    }
    return {
      text:
        lastResult?.done === true
          ? "Saved: I will remember your peanut allergy."
          : `Not saved: ${JSON.stringify(lastResult)}`,
    };
  }
  if (view.user === TURNS.recall) {
    if (!last) return { toolCall: { name: "memory_search", args: { queryText: "peanut allergy" } } };
    const titles = hitsOf(last.result).map((hit) => hit.title);
    return {
      text: `Recalled: ${titles.join(", ") || "nothing"}. Memory block in my instructions: ${view.system.includes("allergic to peanuts") ? "yes" : "no"}.`,
    };
  }
  if (view.user === TURNS.forget) {
    if (!last) return { toolCall: { name: "memory_search", args: { kinds: ["food_avoidance"] } } };
    if (last.name === "memory_search") {
      const hit = hitsOf(last.result)[0];
      if (!hit) return { text: "There is nothing to forget." };
      return {
        toolCall: {
          name: "memory_forget",
          args: { id: hit.id, expectedRevision: hit.revision, reason: "the user asked to forget it" },
        },
      };
    }
    return { text: `Forget answered done=${String(lastResult?.done)} reason=${String(lastResult?.reason)}` };
  }
  return { text: "I have no script for this." };
}
