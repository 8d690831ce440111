"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { CardDetailData, KindOption, RouterOutputs } from "~/trpc/types";
import { Dialog } from "../dialog";
import { ErasureReceiptView } from "../erasure-receipt";
import { FormError } from "../form";
import { LocalTime } from "../local-time";
import { buttonClass, inputClass } from "../ui";
import { draftFromCard, nodeFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";
import { JsonValue } from "../json-value";

type Card = CardDetailData["node"];
type Revision = CardDetailData["revisions"][number];
type WriteResult = RouterOutputs["memory"]["write"];
type ForgetResult = RouterOutputs["memory"]["forget"];
type Mode = null | "edit" | "supersede" | "expire" | "forget" | "erase";
type Conflict = { mine: CardDraft; current: Revision | null };

/** The first operation's outcome in words, for the dialog when a write did not go through. */
const outcomeMessage = (result: WriteResult) => result.results.find((r) => r.reason !== "batch_aborted")?.message ?? result.message;

/**
 * Corrections on a card page: edit (new revision at the revision the person saw), supersede, expire,
 * soft-forget and hard-forget (typed confirmation, erasure receipt). A revision mismatch never
 * overwrites: it opens the conflict dialog with both versions.
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
  const [confirmText, setConfirmText] = useState("");
  const [eraseEvidence, setEraseEvidence] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [receipt, setReceipt] = useState<NonNullable<ForgetResult["receipt"]> | null>(null);

  const write = useMutation(trpc.memory.write.mutationOptions());
  const forget = useMutation(trpc.memory.forget.mutationOptions());
  const busy = write.isPending || forget.isPending;

  const open = (next: Mode) => {
    setError(null);
    setNotice(null);
    setReason("");
    setConfirmText("");
    setEraseEvidence(false);
    if (next === "edit" || next === "supersede") setDraft(draftFromCard(card, kind?.valueShape));
    setMode(next);
  };
  const close = () => setMode(null);

  /** After a write: go to the new revision, report a noop, or open the conflict dialog. */
  async function settle(result: WriteResult, mine: CardDraft | null) {
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
    if (first?.status === "conflict" && mine) {
      const fresh = await queryClient.fetchQuery({ ...trpc.memory.card.queryOptions({ id: card.id }), staleTime: 0 });
      const current = fresh.revisions.find((r) => r.status === "active") ?? null;
      setMode(null);
      setConflict({ mine, current });
      return;
    }
    setError(outcomeMessage(result));
  }

  async function submitEdit(target: { id: string; revision: number }, mine: CardDraft) {
    setError(null);
    try {
      const node = nodeFromDraft(mine, kind?.valueShape);
      const result = await write.mutateAsync({
        operations: [{ op: "update", targetId: target.id, expectedRevision: target.revision, node, ...(mine.reason.trim() ? { reason: mine.reason.trim() } : {}) }],
      });
      await settle(result, mine);
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
      await settle(result, draft);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  async function submitExpire() {
    setError(null);
    try {
      const result = await write.mutateAsync({ operations: [{ op: "expire", targetId: card.id, expectedRevision: card.revision, ...(reason.trim() ? { reason: reason.trim() } : {}) }] });
      if (result.done) {
        setMode(null);
        router.refresh();
      } else setError(outcomeMessage(result));
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  async function submitForget(hard: boolean) {
    setError(null);
    try {
      const result = await forget.mutateAsync({ id: card.id, expectedRevision: card.revision, mode: hard ? "hard" : "soft", eraseEvidence: hard && eraseEvidence, reason: reason.trim() });
      if (!result.done) {
        setError(result.message);
        return;
      }
      setMode(null);
      if (hard && result.receipt) setReceipt(result.receipt);
      else router.refresh();
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  const reasonInput = (required: boolean) => (
    <label className="block text-sm">
      <span className="font-medium">{t("field.reason")}</span>
      <input required={required} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} placeholder={t("card.reasonHint")} className={`mt-1 ${inputClass}`} />
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
        <button type="button" onClick={() => open("erase")} className={buttonClass("danger", "sm")}>
          {t("card.erase")}
        </button>
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
            void submitEdit({ id: card.id, revision: card.revision }, draft);
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
              <select value={supersedeKind} onChange={(e) => setSupersedeKind(e.target.value)} className={`mt-1 ${inputClass}`}>
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
                <input value={supersedeItem} onChange={(e) => setSupersedeItem(e.target.value)} className={`mt-1 ${inputClass}`} />
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
            void submitForget(false);
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("card.forgetHint")}</p>
          {reasonInput(true)}
          <FormError message={error} />
          {footer(t("card.forget"), "danger")}
        </form>
      </Dialog>

      <Dialog open={mode === "erase"} onClose={close} title={t("card.eraseTitle")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submitForget(true);
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("card.eraseHint")}</p>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={eraseEvidence} onChange={(e) => setEraseEvidence(e.target.checked)} />
            {t("card.eraseEvidence")}
          </label>
          {reasonInput(true)}
          <label className="block text-sm">
            <span className="font-medium">{t("card.typeToConfirm", { key: card.key })}</span>
            <input value={confirmText} onChange={(e) => setConfirmText(e.target.value)} autoComplete="off" spellCheck={false} className={`mt-1 font-mono ${inputClass}`} />
          </label>
          <FormError message={error} />
          {footer(t("card.eraseButton"), "danger", confirmText.trim() !== card.key)}
        </form>
      </Dialog>

      <Dialog open={conflict !== null} onClose={() => setConflict(null)} title={t("card.conflictTitle")} wide>
        {conflict ? (
          <ConflictView
            conflict={conflict}
            busy={busy}
            error={error}
            onApply={(current) => {
              const mine = conflict.mine;
              setConflict(null);
              void submitEdit({ id: current.id, revision: current.revision }, mine).then(() => undefined);
            }}
            onDiscard={(current) => {
              setConflict(null);
              router.push(`/memories/${current?.id ?? card.id}`);
            }}
          />
        ) : null}
      </Dialog>

      <Dialog open={receipt !== null} onClose={() => router.push("/memories")} title={t("card.receiptTitle")}>
        {receipt ? (
          <div className="space-y-3 text-sm">
            <p>{t("card.receiptHint")}</p>
            <ErasureReceiptView receipt={receipt} label={t("card.receiptTitle")} detail={receipt.nodeIds.join(", ")} />
            <Link href="/memories" className={buttonClass("primary")}>
              {t("card.backToMemories")}
            </Link>
          </div>
        ) : null}
      </Dialog>
    </>
  );
}

/** Both versions side by side: what the person typed, and what the card says now. */
function ConflictView({ conflict, busy, error, onApply, onDiscard }: { conflict: Conflict; busy: boolean; error: string | null; onApply: (current: Revision) => void; onDiscard: (current: Revision | null) => void }) {
  const { t } = useI18n();
  const { mine, current } = conflict;
  const column = (heading: React.ReactNode, title: string, content: string, value: React.ReactNode) => (
    <div className="min-w-0 rounded-xl border border-zinc-200 p-4 dark:border-zinc-800">
      <h3 className="mb-2 text-sm font-semibold">{heading}</h3>
      <p className="font-medium">{title}</p>
      <p className="mt-1 text-sm whitespace-pre-wrap">{content}</p>
      <div className="mt-2 text-sm">{value}</div>
    </div>
  );
  return (
    <div className="space-y-4">
      <p className="text-sm">{current ? t("card.conflictHint", { revision: current.revision }) : t("card.conflictEnded")}</p>
      <div className="grid gap-4 md:grid-cols-2">
        {column(t("card.yourVersion"), mine.title, mine.content, <pre className="font-mono text-xs whitespace-pre-wrap">{mine.value}</pre>)}
        {current
          ? column(
              <>
                {t("card.currentVersion", { revision: current.revision })} · {current.updatedByLabel} · <LocalTime value={current.updatedAt} />
              </>,
              current.title,
              current.content,
              <JsonValue value={current.valueJson} />,
            )
          : null}
      </div>
      <FormError message={error} />
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" onClick={() => onDiscard(current)} className={buttonClass("secondary")}>
          {t("card.discardMine")}
        </button>
        {current ? (
          <button type="button" disabled={busy} onClick={() => onApply(current)} className={buttonClass("primary")}>
            {t("card.applyMine", { revision: current.revision })}
          </button>
        ) : null}
      </div>
    </div>
  );
}
