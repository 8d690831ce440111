"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import { EndCardDialog } from "./card-end-dialog";
import type { Card } from "./card-write";

/** Forget (soft): the card is marked forgotten at the revision on screen, with the reason given. */
export function ForgetCardDialog({ card, onClose }: { card: Card; onClose: () => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const forget = useMutation(trpc.memory.forget.mutationOptions());
  return (
    <EndCardDialog
      title={t("card.forgetTitle")}
      hint={t("card.forgetHint")}
      submitLabel={t("card.forget")}
      reasonRequired
      variant="danger"
      busy={forget.isPending}
      onClose={onClose}
      end={async (reason) => {
        const result = await forget.mutateAsync({ id: card.id, expectedRevision: card.revision, mode: "soft", reason });
        if (!result.done) return result.message;
        router.refresh();
        return null;
      }}
    />
  );
}
