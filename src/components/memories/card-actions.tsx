"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { CardDetailData, KindOption, RouterOutputs } from "~/trpc/types";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { buttonClass, inputClass, requiredLabelClass } from "../ui";
import { draftFromCard, nodeFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";
import { nodeFromValues, type CardValues } from "./card-merge";
import { cardValues, valuesFromDraft } from "./card-values";
import { ConflictMerge } from "./conflict-merge";
import { EraseCard } from "./erase-card";

type Card = CardDetailData["node"];
type Revision = CardDetailData["revisions"][number];
type WriteResult = RouterOutputs["memory"]["write"];
type Mode = null | "edit" | "supersede" | "expire" | "forget";
/** An edit that may lose a race: the revision it started from (`base`) and what it says (`mine`). */
type PendingEdit = { base: CardValues; baseRevision: number; mine: CardValues; reason: string };
type Conflict = PendingEdit & { current: Revision | null };
type UpdateNode = ReturnType<typeof nodeFromDraft> | ReturnType<typeof nodeFromValues>;

/** The first operation's outcome in words, for the dialog when a write did not go through. */
const outcomeMessage = (result: WriteResult) =>
  result.results.find((r) => r.reason !== "batch_aborted")?.message ?? result.message;

/**
 * Corrections on a card page: edit (new revision at the revision the person saw), supersede, expire,
 * soft-forget and hard-forget (EraseCard). A revision mismatch never overwrites: it opens the
 * conflict dialog, a three-way merge that applies only this tab's changes on top of the new revision.
 */
export function CardActions({ card, kinds }: { card: Card; kinds: KindOption[] }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const kind = kinds.find((k) => k.kind === card.kind);
  const [mode, setMode] = useState<Mode>(null);
  const [draft, setDraft] = useState<CardDraft>(() => draftFromCard(card, kind?.valueShape));
  const [supersedeKind, setSupersedeKind] = useState(card.kind);
  const [supersedeItem, setSupersedeItem] = useState(card.itemKey ?? "");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);

  const write = useMutation(trpc.memory.write.mutationOptions());
  const forget = useMutation(trpc.memory.forget.mutationOptions());
  const busy = write.isPending || forget.isPending;

  const open = (next: Mode) => {
    setError(null);
    setNotice(null);
    setReason("");
    if (next === "edit" || next === "supersede") setDraft(draftFromCard(card, kind?.valueShape));
    setMode(next);
  };
  const close = () => setMode(null);

  /** After a write: go to the new revision, report a noop, or open the conflict dialog. */
  async function settle(result: WriteResult, pending: PendingEdit | null) {
    const first = result.results[0];
    if (result.done && first?.status === "noop") {
      setMode(null);
      setNotice(t("card.noop"));
      return;
    }
    if (result.done && first?.nodeId) {
      setMode(null);
      if (first.nodeId === card.id) router.refresh();
      else router.push(`/memories/${first.nodeId}`);
      return;
    }
    if (first?.status === "conflict" && pending) {
      const fresh = await queryClient.fetchQuery({ ...trpc.memory.card.queryOptions({ id: card.id }), staleTime: 0 });
      const current = fresh.revisions.find((r) => r.status === "active") ?? null;
      setMode(null);
      setConflict({ ...pending, current });
      return;
    }
    setError(outcomeMessage(result));
  }

  /** What this tab's form says, relative to the revision on screen (for a conflict's merge). */
  const pendingFrom = (mine: CardDraft): PendingEdit => ({
    base: cardValues(card),
    baseRevision: card.revision,
    mine: valuesFromDraft(mine, card, kind?.valueShape),
    reason: mine.reason.trim(),
  });

  /** An update at `target`'s revision; if it loses a race too, `pending` opens the conflict dialog again. */
  async function submitUpdate(target: { id: string; revision: number }, node: UpdateNode, pending: PendingEdit) {
    setError(null);
    try {
      const result = await write.mutateAsync({
        operations: [
          {
            op: "update",
            targetId: target.id,
            expectedRevision: target.revision,
            node,
            ...(pending.reason ? { reason: pending.reason } : {}),
          },
        ],
      });
      await settle(result, pending);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  async function submitSupersede() {
    setError(null);
    const target = kinds.find((k) => k.kind === supersedeKind);
    try {
      const result = await write.mutateAsync({
        operations: [
          {
            op: "supersede",
            targetId: card.id,
            expectedRevision: card.revision,
            kind: supersedeKind,
            ...(target?.itemized && supersedeItem.trim() ? { itemKey: supersedeItem.trim() } : {}),
            node: nodeFromDraft(draft, target?.valueShape),
            ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}),
          },
        ],
      });
      await settle(result, pendingFrom(draft));
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  async function submitExpire() {
    setError(null);
    try {
      const result = await write.mutateAsync({
        operations: [
          {
            op: "expire",
            targetId: card.id,
            expectedRevision: card.revision,
            ...(reason.trim() ? { reason: reason.trim() } : {}),
          },
        ],
      });
      if (result.done) {
        setMode(null);
        router.refresh();
      } else setError(outcomeMessage(result));
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  async function submitForget() {
    setError(null);
    try {
      const result = await forget.mutateAsync({
        id: card.id,
        expectedRevision: card.revision,
        mode: "soft",
        reason: reason.trim(),
      });
      if (!result.done) {
        setError(result.message);
        return;
      }
      setMode(null);
      router.refresh();
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  const reasonInput = (required: boolean) => (
    <label className="block text-sm">
      <span className={required ? `font-medium ${requiredLabelClass}` : "font-medium"}>{t("field.reason")}</span>
      <input
        required={required}
        maxLength={500}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        placeholder={t("card.reasonHint")}
        className={`mt-1 ${inputClass}`}
      />
    </label>
  );
  const footer = (submitLabel: string, variant: "primary" | "danger" = "primary", disabled = false) => (
    <div className="mt-4 flex justify-end gap-2">
      <button type="button" onClick={close} className={buttonClass("ghost")}>
        {t("common.cancel")}
      </button>
      <button type="submit" disabled={busy || disabled} className={buttonClass(variant)}>
        {busy ? t("common.working") : submitLabel}
      </button>
    </div>
  );

  return (
    <>
      <div className="flex flex-wrap gap-2">
        <button type="button" onClick={() => open("edit")} className={buttonClass("primary", "sm")}>
          {t("card.edit")}
        </button>
        <button type="button" onClick={() => open("supersede")} className={buttonClass("secondary", "sm")}>
          {t("card.supersede")}
        </button>
        <button type="button" onClick={() => open("expire")} className={buttonClass("secondary", "sm")}>
          {t("card.expire")}
        </button>
        <button type="button" onClick={() => open("forget")} className={buttonClass("secondary", "sm")}>
          {t("card.forget")}
        </button>
        <EraseCard card={card} />
      </div>
      {mode === null && conflict === null && error ? (
        <div className="mt-3">
          <FormError message={error} />
        </div>
      ) : null}
      {notice ? (
        <p role="status" className="mt-3 rounded-lg bg-zinc-100 px-3 py-2 text-sm dark:bg-zinc-800">
          {notice}
        </p>
      ) : null}

      <Dialog open={mode === "edit"} onClose={close} title={t("card.editTitle")} wide>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            // The first try sends the whole form, as the person saw it; a lost race merges (ConflictMerge).
            void submitUpdate(card, nodeFromDraft(draft, kind?.valueShape), pendingFrom(draft));
          }}
        >
          <p className="mb-3 text-sm text-zinc-500">{t("card.editHint", { revision: card.revision })}</p>
          <CardFields draft={draft} onChange={setDraft} kind={kind} />
          <div className="mt-3">
            <FormError message={error} />
          </div>
          {footer(t("card.saveRevision"))}
        </form>
      </Dialog>

      <Dialog open={mode === "supersede"} onClose={close} title={t("card.supersedeTitle")} wide>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submitSupersede();
          }}
        >
          <p className="mb-3 text-sm text-zinc-500">{t("card.supersedeHint")}</p>
          <div className="mb-3 grid gap-3 sm:grid-cols-2">
            <label className="block text-sm">
              <span className="font-medium">{t("field.kind")}</span>
              <select
                value={supersedeKind}
                onChange={(e) => setSupersedeKind(e.target.value)}
                className={`mt-1 ${inputClass}`}
              >
                {kinds.map((k) => (
                  <option key={k.kind} value={k.kind}>
                    {k.kind}
                  </option>
                ))}
              </select>
            </label>
            {kinds.find((k) => k.kind === supersedeKind)?.itemized ? (
              <label className="block text-sm">
                <span className="font-medium">{t("field.itemKey")}</span>
                <input
                  value={supersedeItem}
                  onChange={(e) => setSupersedeItem(e.target.value)}
                  className={`mt-1 ${inputClass}`}
                />
              </label>
            ) : null}
          </div>
          <CardFields draft={draft} onChange={setDraft} kind={kinds.find((k) => k.kind === supersedeKind)} />
          <div className="mt-3">
            <FormError message={error} />
          </div>
          {footer(t("card.supersede"))}
        </form>
      </Dialog>

      <Dialog open={mode === "expire"} onClose={close} title={t("card.expireTitle")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submitExpire();
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("card.expireHint")}</p>
          {reasonInput(false)}
          <FormError message={error} />
          {footer(t("card.expire"))}
        </form>
      </Dialog>

      <Dialog open={mode === "forget"} onClose={close} title={t("card.forgetTitle")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submitForget();
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("card.forgetHint")}</p>
          {reasonInput(true)}
          <FormError message={error} />
          {footer(t("card.forget"), "danger")}
        </form>
      </Dialog>

      <Dialog open={conflict !== null} onClose={() => setConflict(null)} title={t("card.conflictTitle")} wide>
        {conflict?.current ? (
          <ConflictMerge
            key={conflict.current.revision}
            base={conflict.base}
            baseRevision={conflict.baseRevision}
            mine={conflict.mine}
            current={conflict.current}
            busy={busy}
            error={error}
            onApply={(merged) => {
              const current = conflict.current!;
              setConflict(null);
              // Saved on top of the revision just compared; losing again compares against the next one.
              void submitUpdate(current, nodeFromValues(merged), {
                base: cardValues(current),
                baseRevision: current.revision,
                mine: merged,
                reason: conflict.reason,
              });
            }}
            onDiscard={() => {
              setConflict(null);
              router.push(`/memories/${conflict.current?.id ?? card.id}`);
            }}
          />
        ) : conflict ? (
          <div className="space-y-4 text-sm">
            <p>{t("card.conflictEnded")}</p>
            <div className="flex justify-end">
              <button
                type="button"
                onClick={() => (setConflict(null), router.refresh())}
                className={buttonClass("secondary")}
              >
                {t("common.close")}
              </button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </>
  );
}
