"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { DialogFooter, ReasonInput } from "./card-dialog-parts";
import { outcomeMessage, type Card } from "./card-write";

/** Expire: the card stops being current at the revision on screen; the page shows it ended. */
export function ExpireCardDialog({ card, onClose }: { card: Card; onClose: () => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const write = useMutation(trpc.memory.write.mutationOptions());
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);

  async function submit() {
    setError(null);
    try {
      const result = await write.mutateAsync({
        operations: [
          {
            op: "expire",
            targetId: card.id,
            expectedRevision: card.revision,
            ...(reason.trim() ? { reason: reason.trim() } : {}),
          },
        ],
      });
      if (!result.done) return setError(outcomeMessage(result));
      onClose();
      router.refresh();
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <Dialog open onClose={onClose} title={t("card.expireTitle")}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        className="space-y-3"
      >
        <p className="text-sm">{t("card.expireHint")}</p>
        <ReasonInput value={reason} onChange={setReason} required={false} />
        <FormError message={error} />
        <DialogFooter submitLabel={t("card.expire")} onCancel={onClose} busy={write.isPending} />
      </form>
    </Dialog>
  );
}
