"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { ScopeErasureReceipt } from "~/server/memory";
import { useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { ErasureReceiptView } from "../erasure-receipt";
import { ReasonedAction } from "../reasoned-action";
import { buttonClass } from "../ui";

/**
 * Erases a person's profile (optionally with their conversations) or a workspace's memory for good,
 * after a typed confirmation (`confirm`: their email, the workspace id); then shows the receipt.
 */
export function EraseMemoryButton({
  scope,
  confirm,
  conversations,
}: {
  scope: string;
  confirm: string;
  conversations: boolean;
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const erase = useMutation(trpc.admin.eraseMemory.mutationOptions());
  const [withConversations, setWithConversations] = useState(false);
  const [receipt, setReceipt] = useState<ScopeErasureReceipt | null>(null);

  return (
    <>
      <ReasonedAction
        label={t("erase.button")}
        buttonClassName={`${buttonClass("ghost", "sm")} text-red-700 dark:text-red-400`}
        onOpen={() => setWithConversations(false)}
        title={t("erase.title", { scope })}
        hint={t("erase.hint", { scope })}
        submitLabel={t("erase.button")}
        variant="danger"
        confirm={confirm}
        extra={
          conversations ? (
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={withConversations}
                onChange={(e) => setWithConversations(e.target.checked)}
              />
              {t("erase.conversations")}
            </label>
          ) : null
        }
        act={async (reason) => {
          const result = await erase.mutateAsync({ scope, reason, conversations: conversations && withConversations });
          if (!result.done || !result.receipt) return result.message;
          setReceipt(result.receipt);
          return null;
        }}
      />
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
