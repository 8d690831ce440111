"use client";

import { useRouter } from "next/navigation";
import { useI18n } from "~/i18n/client";
import { Dialog } from "../dialog";
import { buttonClass } from "../ui";
import { cardFromValues } from "./card-merge";
import { cardValues } from "./card-values";
import { ConflictMerge } from "./conflict-merge";
import type { CardWrite, Conflict } from "./card-write";

/**
 * A lost race: a three-way merge that applies only this tab's changes on top of the new revision
 * (ConflictMerge), or word that the card ended meanwhile. Applying saves on top of the revision just
 * compared; losing again opens this dialog on the next one.
 */
export function ConflictDialog({
  conflict,
  writer,
  error,
  onApplied,
  onClose,
}: {
  conflict: Conflict;
  writer: CardWrite;
  error: string | null;
  /** The merged update's error to show on the page, or null. */
  onApplied: (error: string | null) => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const router = useRouter();
  const current = conflict.current;
  return (
    <Dialog open onClose={onClose} title={t("card.conflictTitle")} wide>
      {current ? (
        <ConflictMerge
          key={current.revision}
          base={conflict.base}
          baseRevision={conflict.baseRevision}
          mine={conflict.mine}
          current={current}
          busy={writer.busy}
          error={error}
          onApply={(merged) => {
            onClose();
            const pending = {
              base: cardValues(current),
              baseRevision: current.revision,
              mine: merged,
              reason: conflict.reason,
            };
            void writer
              .submit(
                {
                  op: "update",
                  targetId: current.id,
                  expectedRevision: current.revision,
                  node: cardFromValues(merged),
                  ...(pending.reason ? { reason: pending.reason } : {}),
                },
                pending,
              )
              .then(onApplied);
          }}
          onDiscard={() => {
            onClose();
            router.push(`/memories/${current.id}`);
          }}
        />
      ) : (
        <div className="space-y-4 text-sm">
          <p>{t("card.conflictEnded")}</p>
          <div className="flex justify-end">
            <button type="button" onClick={() => (onClose(), router.refresh())} className={buttonClass("secondary")}>
              {t("common.close")}
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
