"use client";

import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { KindOption } from "~/trpc/types";
import { FormError } from "../form";
import { buttonClass } from "../ui";
import { ConflictDialog } from "./card-conflict-dialog";
import { EditCardDialog } from "./card-edit-dialog";
import { ExpireCardDialog } from "./card-expire-dialog";
import { ForgetCardDialog } from "./card-forget-dialog";
import { SupersedeCardDialog } from "./card-supersede-dialog";
import { useCardWrite, type Card, type Conflict } from "./card-write";
import { EraseCard } from "./erase-card";

type Mode = null | "edit" | "supersede" | "expire" | "forget";

/**
 * Corrections on a card page, one dialog each: edit (a new revision at the revision the person saw),
 * supersede, expire, soft-forget and hard-forget (EraseCard). A revision mismatch never overwrites:
 * it opens the conflict dialog.
 */
export function CardActions({ card, kinds }: { card: Card; kinds: KindOption[] }) {
  const { t } = useI18n();
  const kind = kinds.find((k) => k.kind === card.kind);
  const [mode, setMode] = useState<Mode>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  /** A merged update (from the conflict dialog) that did not go through. */
  const [error, setError] = useState<string | null>(null);
  const writer = useCardWrite(card, kind, {
    noop: () => (setMode(null), setNotice(t("card.noop"))),
    saved: () => setMode(null),
    conflict: (next) => (setMode(null), setError(null), setConflict(next)),
  });

  const open = (next: Mode) => {
    setError(null);
    setNotice(null);
    setMode(next);
  };
  const close = () => setMode(null);

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

      {mode === "edit" ? <EditCardDialog card={card} kind={kind} writer={writer} onClose={close} /> : null}
      {mode === "supersede" ? <SupersedeCardDialog card={card} kinds={kinds} writer={writer} onClose={close} /> : null}
      {mode === "expire" ? <ExpireCardDialog card={card} onClose={close} /> : null}
      {mode === "forget" ? <ForgetCardDialog card={card} onClose={close} /> : null}
      {conflict ? (
        <ConflictDialog
          conflict={conflict}
          writer={writer}
          error={error}
          onApplied={setError}
          onClose={() => setConflict(null)}
        />
      ) : null}
    </>
  );
}
