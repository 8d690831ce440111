"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import { ReasonedAction } from "../reasoned-action";
import { buttonClass } from "../ui";

/** Undo of a forget or an expiry on the card's page: the card comes back as its chain's next revision. */
export function RestoreCard({ card }: { card: { id: string; revision: number; key: string } }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const restore = useMutation(trpc.memory.restore.mutationOptions());
  return (
    <ReasonedAction
      label={t("card.restore")}
      buttonClassName={buttonClass("primary", "sm")}
      title={t("card.restoreTitle")}
      hint={t("card.restoreHint", { key: card.key })}
      submitLabel={t("card.restore")}
      variant="primary"
      act={async (reason) => {
        const result = await restore.mutateAsync({ id: card.id, expectedRevision: card.revision, reason });
        if (!result.done || !result.nodeId) return result.message;
        router.push(`/memories/${result.nodeId}`);
        return null;
      }}
    />
  );
}
