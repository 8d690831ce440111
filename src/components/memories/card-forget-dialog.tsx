"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { DialogFooter, ReasonInput } from "./card-dialog-parts";
import type { Card } from "./card-write";

/** Forget (soft): the card is marked forgotten at the revision on screen, with the reason given. */
export function ForgetCardDialog({ card, onClose }: { card: Card; onClose: () => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const forget = useMutation(trpc.memory.forget.mutationOptions());
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);

  async function submit() {
    setError(null);
    try {
      const result = await forget.mutateAsync({
        id: card.id,
        expectedRevision: card.revision,
        mode: "soft",
        reason: reason.trim(),
      });
      if (!result.done) return setError(result.message);
      onClose();
      router.refresh();
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <Dialog open onClose={onClose} title={t("card.forgetTitle")}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        className="space-y-3"
      >
        <p className="text-sm">{t("card.forgetHint")}</p>
        <ReasonInput value={reason} onChange={setReason} required />
        <FormError message={error} />
        <DialogFooter submitLabel={t("card.forget")} onCancel={onClose} busy={forget.isPending} variant="danger" />
      </form>
    </Dialog>
  );
}
