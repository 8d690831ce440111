"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import { EndCardDialog } from "./card-end-dialog";
import { outcomeMessage, type Card } from "./card-write";

/** Expire: the card stops being current at the revision on screen; the page shows it ended. */
export function ExpireCardDialog({ card, onClose }: { card: Card; onClose: () => void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const write = useMutation(trpc.memory.write.mutationOptions());
  return (
    <EndCardDialog
      title={t("card.expireTitle")}
      hint={t("card.expireHint")}
      submitLabel={t("card.expire")}
      reasonRequired={false}
      busy={write.isPending}
      onClose={onClose}
      end={async (reason) => {
        const result = await write.mutateAsync({
          operations: [
            {
              op: "expire",
              targetId: card.id,
              expectedRevision: card.revision,
              ...(reason ? { reason } : {}),
            },
          ],
        });
        if (!result.done) return outcomeMessage(result);
        router.refresh();
        return null;
      }}
    />
  );
}
