"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { Dialog } from "../dialog";
import { ErasureReceiptView } from "../erasure-receipt";
import { FormError } from "../form";
import { buttonClass, FieldRow, inputClass } from "../ui";

type Receipt = NonNullable<RouterOutputs["memory"]["forget"]["receipt"]>;

/**
 * "Erase permanently" on a card page: a hard forget of the card's whole chain at the revision on
 * screen, after a reason and the typed key; then the erasure receipt. Offered on the current revision
 * and on a chain's last revision when it was forgotten or expired (no restore needed first).
 */
export function EraseCard({ card }: { card: { id: string; revision: number; key: string } }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const forget = useMutation(trpc.memory.forget.mutationOptions());
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [confirmText, setConfirmText] = useState("");
  const [eraseEvidence, setEraseEvidence] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [receipt, setReceipt] = useState<Receipt | null>(null);

  const start = () => {
    setReason("");
    setConfirmText("");
    setEraseEvidence(false);
    setError(null);
    setOpen(true);
  };

  async function submit() {
    setError(null);
    try {
      const result = await forget.mutateAsync({
        id: card.id,
        expectedRevision: card.revision,
        mode: "hard",
        eraseEvidence,
        reason: reason.trim(),
      });
      if (!result.done || !result.receipt) {
        setError(result.message);
        return;
      }
      setOpen(false);
      setReceipt(result.receipt);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <>
      <button type="button" onClick={start} className={buttonClass("danger", "sm")}>
        {t("card.erase")}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("card.eraseTitle")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
          className="space-y-3 text-sm"
        >
          <p>{t("card.eraseHint")}</p>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={eraseEvidence} onChange={(e) => setEraseEvidence(e.target.checked)} />
            {t("card.eraseEvidence")}
          </label>
          <FieldRow label={t("field.reason")} required>
            <input
              required
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              placeholder={t("card.reasonHint")}
              className={inputClass}
            />
          </FieldRow>
          <FieldRow label={t("card.typeToConfirm", { key: card.key })} required>
            <input
              required
              value={confirmText}
              onChange={(e) => setConfirmText(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              className={`font-mono ${inputClass}`}
            />
          </FieldRow>
          <FormError message={error} />
          <div className="mt-4 flex justify-end gap-2">
            <button type="button" onClick={() => setOpen(false)} className={buttonClass("ghost")}>
              {t("common.cancel")}
            </button>
            <button
              type="submit"
              disabled={forget.isPending || confirmText.trim() !== card.key}
              className={buttonClass("danger")}
            >
              {forget.isPending ? t("common.working") : t("card.eraseButton")}
            </button>
          </div>
        </form>
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
