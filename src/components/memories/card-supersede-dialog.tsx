"use client";

import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { KindOption } from "~/trpc/types";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { inputClass } from "../ui";
import { draftFromCard, cardFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";
import { DialogFooter } from "./card-dialog-parts";
import type { Card, CardWrite } from "./card-write";

/** Supersede: the card replaced by a new one, of this kind or another, at the revision on screen. */
export function SupersedeCardDialog({
  card,
  kinds,
  writer,
  onClose,
}: {
  card: Card;
  kinds: KindOption[];
  writer: CardWrite;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<CardDraft>(() =>
    draftFromCard(card, kinds.find((k) => k.kind === card.kind)?.valueShape),
  );
  const [kindName, setKindName] = useState(card.kind);
  const [item, setItem] = useState(card.itemKey ?? "");
  const [error, setError] = useState<string | null>(null);
  const target = kinds.find((k) => k.kind === kindName);
  return (
    <Dialog open onClose={onClose} title={t("card.supersedeTitle")} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          void writer
            .submit(
              {
                op: "supersede",
                targetId: card.id,
                expectedRevision: card.revision,
                kind: kindName,
                ...(target?.itemized && item.trim() ? { itemKey: item.trim() } : {}),
                node: cardFromDraft(draft, target?.valueShape),
                ...(draft.reason.trim() ? { reason: draft.reason.trim() } : {}),
              },
              writer.pendingFrom(draft),
            )
            .then(setError);
        }}
      >
        <p className="mb-3 text-sm text-zinc-500">{t("card.supersedeHint")}</p>
        <div className="mb-3 grid gap-3 sm:grid-cols-2">
          <label className="block text-sm">
            <span className="font-medium">{t("field.kind")}</span>
            <select value={kindName} onChange={(e) => setKindName(e.target.value)} className={`mt-1 ${inputClass}`}>
              {kinds.map((k) => (
                <option key={k.kind} value={k.kind}>
                  {k.kind}
                </option>
              ))}
            </select>
          </label>
          {target?.itemized ? (
            <label className="block text-sm">
              <span className="font-medium">{t("field.itemKey")}</span>
              <input value={item} onChange={(e) => setItem(e.target.value)} className={`mt-1 ${inputClass}`} />
            </label>
          ) : null}
        </div>
        <CardFields draft={draft} onChange={setDraft} kind={target} />
        <div className="mt-3">
          <FormError message={error} />
        </div>
        <DialogFooter submitLabel={t("card.supersede")} onCancel={onClose} busy={writer.busy} />
      </form>
    </Dialog>
  );
}
