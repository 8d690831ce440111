"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { CardDetailData, KindOption, RouterInputs, RouterOutputs } from "~/trpc/types";
import type { CardDraft } from "./card-draft";
import type { CardValues } from "./card-merge";
import { cardValues, valuesFromDraft } from "./card-values";

export type Card = CardDetailData["card"];
type Revision = CardDetailData["revisions"][number];
type WriteResult = RouterOutputs["memory"]["write"];
type WriteOperation = RouterInputs["memory"]["write"]["operations"][number];
/** An edit that may lose a race: the revision it started from (`base`) and what it says (`mine`). */
export type PendingEdit = { base: CardValues; baseRevision: number; mine: CardValues; reason: string };
export type Conflict = PendingEdit & { current: Revision | null };

/** The first operation's outcome in words, for the dialog when a write did not go through. */
export const outcomeMessage = (result: WriteResult) =>
  result.results.find((r) => r.reason !== "batch_aborted")?.message ?? result.message;

/**
 * One write of a card page's edit, supersede or merge, and what follows it: the new revision is
 * shown (or the page refreshed), a noop is reported, or a revision mismatch opens the conflict dialog
 * (never an overwrite). `submit` answers the error to show, or null.
 */
export function useCardWrite(
  card: Card,
  kind: KindOption | undefined,
  on: { noop: () => void; saved: () => void; conflict: (conflict: Conflict) => void },
) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const write = useMutation(trpc.memory.write.mutationOptions());

  async function submit(operation: WriteOperation, pending: PendingEdit | null): Promise<string | null> {
    try {
      const result = await write.mutateAsync({ operations: [operation] });
      const first = result.results[0];
      if (result.done && first?.status === "noop") {
        on.noop();
        return null;
      }
      if (result.done && first?.nodeId) {
        on.saved();
        if (first.nodeId === card.id) router.refresh();
        else router.push(`/memories/${first.nodeId}`);
        return null;
      }
      if (first?.status === "conflict" && pending) {
        const fresh = await queryClient.fetchQuery({ ...trpc.memory.card.queryOptions({ id: card.id }), staleTime: 0 });
        on.conflict({ ...pending, current: fresh.revisions.find((r) => r.status === "active") ?? null });
        return null;
      }
      return outcomeMessage(result);
    } catch (e) {
      return errorMessage(e);
    }
  }

  /** What a tab's form says, relative to the revision on screen (for a conflict's merge). */
  const pendingFrom = (mine: CardDraft): PendingEdit => ({
    base: cardValues(card),
    baseRevision: card.revision,
    mine: valuesFromDraft(mine, card, kind?.valueShape),
    reason: mine.reason.trim(),
  });

  return { submit, pendingFrom, busy: write.isPending };
}

export type CardWrite = ReturnType<typeof useCardWrite>;
