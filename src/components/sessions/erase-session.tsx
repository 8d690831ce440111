"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { SessionErasureReceipt } from "~/server/memory";
import { useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { ErasureReceiptView } from "../erasure-receipt";
import { ReasonedAction } from "../reasoned-action";
import { buttonClass } from "../ui";

/** Erases the whole conversation after a typed confirmation, then shows what went (counts only). */
export function EraseSession({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const [receipt, setReceipt] = useState<SessionErasureReceipt | null>(null);
  const erase = useMutation(trpc.memory.eraseSession.mutationOptions());

  return (
    <>
      <ReasonedAction
        label={t("sessions.erase")}
        buttonClassName={buttonClass("danger", "sm")}
        title={t("sessions.eraseTitle")}
        hint={t("sessions.eraseHint")}
        submitLabel={t("sessions.erase")}
        variant="danger"
        confirm={sessionId}
        act={async (reason) => {
          const result = await erase.mutateAsync({ sessionId, reason });
          if (!result.done || !result.receipt) return result.message;
          setReceipt(result.receipt);
          return null;
        }}
      />
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
