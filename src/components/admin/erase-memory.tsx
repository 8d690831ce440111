"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { ScopeErasureReceipt } from "~/server/memory/erase-scope";
import { errorMessage, useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { ErasureReceiptView } from "../erasure-receipt";
import { FormError } from "../form";
import { buttonClass, inputClass } from "../ui";

/**
 * Erases a person's profile (optionally with their conversations) or a workspace's memory for good,
 * after a typed confirmation (`confirm`: their email, the workspace id); then shows the receipt.
 */
export function EraseMemoryButton({ scope, confirm, conversations }: { scope: string; confirm: string; conversations: boolean }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const erase = useMutation(trpc.admin.eraseMemory.mutationOptions());
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [typed, setTyped] = useState("");
  const [withConversations, setWithConversations] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [receipt, setReceipt] = useState<ScopeErasureReceipt | null>(null);

  async function submit() {
    setError(null);
    try {
      const result = await erase.mutateAsync({ scope, reason: reason.trim(), conversations: conversations && withConversations });
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
      <button type="button" onClick={() => (setError(null), setReason(""), setTyped(""), setWithConversations(false), setOpen(true))} className={`${buttonClass("ghost", "sm")} text-red-700 dark:text-red-400`}>
        {t("erase.button")}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("erase.title", { scope })}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("erase.hint", { scope })}</p>
          {conversations ? (
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={withConversations} onChange={(e) => setWithConversations(e.target.checked)} />
              {t("erase.conversations")}
            </label>
          ) : null}
          <label className="block text-sm">
            <span className="font-medium">{t("field.reason")}</span>
            <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} placeholder={t("card.reasonHint")} className={`mt-1 ${inputClass}`} />
          </label>
          <label className="block text-sm">
            <span className="font-medium">{t("card.typeToConfirm", { key: confirm })}</span>
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} className={`mt-1 font-mono ${inputClass}`} />
          </label>
          <FormError message={error} />
          <div className="mt-4 flex justify-end gap-2">
            <button type="button" onClick={() => setOpen(false)} className={buttonClass("ghost")}>
              {t("common.cancel")}
            </button>
            <button type="submit" disabled={erase.isPending || typed !== confirm} className={buttonClass("danger")}>
              {erase.isPending ? t("common.working") : t("erase.button")}
            </button>
          </div>
        </form>
      </Dialog>
      <Dialog
        open={receipt !== null}
        onClose={() => {
          setReceipt(null);
          router.refresh();
        }}
        title={t("card.receiptTitle")}
      >
        {receipt ? (
          <div className="space-y-3 text-sm">
            <p>{t("erase.done", { scope: receipt.scope, n: receipt.sessionsErased })}</p>
            <ErasureReceiptView receipt={receipt} label={t("card.receiptTitle")} detail={receipt.scope} />
          </div>
        ) : null}
      </Dialog>
    </>
  );
}
