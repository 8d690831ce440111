"use client";

import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { KindOption } from "~/trpc/types";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { draftFromCard, cardFromDraft, type CardDraft } from "./card-draft";
import { CardFields } from "./card-fields";
import { DialogFooter } from "./card-dialog-parts";
import type { Card, CardWrite } from "./card-write";

/** Edit: a new revision at the revision the person saw; a lost race opens the conflict dialog. */
export function EditCardDialog({
  card,
  kind,
  writer,
  onClose,
}: {
  card: Card;
  kind: KindOption | undefined;
  writer: CardWrite;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<CardDraft>(() => draftFromCard(card, kind?.valueShape));
  const [error, setError] = useState<string | null>(null);
  return (
    <Dialog open onClose={onClose} title={t("card.editTitle")} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          const pending = writer.pendingFrom(draft);
          // The first try sends the whole form, as the person saw it; a lost race merges (ConflictMerge).
          void writer
            .submit(
              {
                op: "update",
                targetId: card.id,
                expectedRevision: card.revision,
                node: cardFromDraft(draft, kind?.valueShape),
                ...(pending.reason ? { reason: pending.reason } : {}),
              },
              pending,
            )
            .then(setError);
        }}
      >
        <p className="mb-3 text-sm text-zinc-500">{t("card.editHint", { revision: card.revision })}</p>
        <CardFields draft={draft} onChange={setDraft} kind={kind} />
        <div className="mt-3">
          <FormError message={error} />
        </div>
        <DialogFooter submitLabel={t("card.saveRevision")} onCancel={onClose} busy={writer.busy} />
      </form>
    </Dialog>
  );
}
