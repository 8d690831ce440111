"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { buttonClass, inputClass } from "../ui";

/** Undo of a forget or an expiry on the card's page: the card comes back as its chain's next revision. */
export function RestoreCard({ card }: { card: { id: string; revision: number; key: string } }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const restore = useMutation(trpc.memory.restore.mutationOptions());

  async function submit() {
    setError(null);
    try {
      const result = await restore.mutateAsync({ id: card.id, expectedRevision: card.revision, reason: reason.trim() });
      if (!result.done || !result.nodeId) {
        setError(result.message);
        return;
      }
      setOpen(false);
      router.push(`/memories/${result.nodeId}`);
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <>
      <button type="button" onClick={() => (setError(null), setReason(""), setOpen(true))} className={buttonClass("primary", "sm")}>
        {t("card.restore")}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={t("card.restoreTitle")}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
          className="space-y-3"
        >
          <p className="text-sm">{t("card.restoreHint", { key: card.key })}</p>
          <label className="block text-sm">
            <span className="font-medium">{t("field.reason")}</span>
            <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} placeholder={t("card.reasonHint")} className={`mt-1 ${inputClass}`} />
          </label>
          <FormError message={error} />
          <div className="mt-4 flex justify-end gap-2">
            <button type="button" onClick={() => setOpen(false)} className={buttonClass("ghost")}>
              {t("common.cancel")}
            </button>
            <button type="submit" disabled={restore.isPending} className={buttonClass("primary")}>
              {restore.isPending ? t("common.working") : t("card.restore")}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
