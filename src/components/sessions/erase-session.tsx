"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { SessionErasureReceipt } from "~/server/memory/erase-session";
import { errorMessage, useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { ErasureReceiptView } from "../erasure-receipt";
import { FormError } from "../form";
import { buttonClass, inputClass } from "../ui";

/** Erases the whole conversation after a typed confirmation, then shows what went (counts only). */
export function EraseSession({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [confirmText, setConfirmText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [receipt, setReceipt] = useState<SessionErasureReceipt | null>(null);
  const erase = useMutation(trpc.memory.eraseSession.mutationOptions());

  async function submit() {
    setError(null);
    try {
      const result = await erase.mutateAsync({ sessionId, reason: reason.trim() });
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
      <button type="button" onClick={() => (setError(null), setReason(""), setConfirmText(""), setOpen(true))} className={buttonClass("danger", "sm")}>
        {t("sessions.erase")}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("sessions.eraseTitle")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("sessions.eraseHint")}</p>
          <label className="block text-sm">
            <span className="font-medium">{t("field.reason")}</span>
            <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} placeholder={t("card.reasonHint")} className={`mt-1 ${inputClass}`} />
          </label>
          <label className="block text-sm">
            <span className="font-medium">{t("card.typeToConfirm", { key: sessionId })}</span>
            <input value={confirmText} onChange={(e) => setConfirmText(e.target.value)} autoComplete="off" spellCheck={false} className={`mt-1 font-mono ${inputClass}`} />
          </label>
          <FormError message={error} />
          <div className="mt-4 flex justify-end gap-2">
            <button type="button" onClick={() => setOpen(false)} className={buttonClass("ghost")}>
              {t("common.cancel")}
            </button>
            <button type="submit" disabled={erase.isPending || confirmText !== sessionId} className={buttonClass("danger")}>
              {erase.isPending ? t("common.working") : t("sessions.erase")}
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog open={receipt !== null} onClose={() => router.push("/sessions")} title={t("card.receiptTitle")}>
        {receipt ? (
          <div className="space-y-3 text-sm">
            <p>{t("sessions.erasedHint", { n: receipt.cardsCitingKept })}</p>
            <ErasureReceiptView receipt={receipt} label={t("card.receiptTitle")} detail={receipt.sessionId} />
            <Link href="/sessions" className={buttonClass("primary")}>
              {t("sessions.backToSessions")}
            </Link>
          </div>
        ) : null}
      </Dialog>
    </>
  );
}
