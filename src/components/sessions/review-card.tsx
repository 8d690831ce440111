"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage, useTRPC } from "~/trpc/react";
import { ReasonedAction } from "../reasoned-action";
import { buttonClass } from "../ui";

/**
 * Review of a card the background extractor inferred: accept makes it explicit (a new revision by
 * this person, audited), reject forgets it with the reason given (audited). The page reloads after.
 */
export function ReviewCard({ id, revision, title }: { id: string; revision: number; title: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const write = useMutation(trpc.memory.write.mutationOptions());
  const forget = useMutation(trpc.memory.forget.mutationOptions());

  async function accept() {
    setError(null);
    try {
      // The dashboard's writes are explicit: an update without changes makes the inferred card explicit.
      const result = await write.mutateAsync({
        operations: [
          { op: "update", targetId: id, expectedRevision: revision, node: {}, reason: "accepted in review" },
        ],
      });
      if (!result.done) setError(result.message);
      else router.refresh();
    } catch (e) {
      setError(errorMessage(e));
    }
  }

  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        type="button"
        onClick={accept}
        disabled={write.isPending}
        className={buttonClass("primary", "sm")}
        aria-label={`${t("sessions.accept")}: ${title}`}
      >
        {t("sessions.accept")}
      </button>
      <ReasonedAction
        label={t("sessions.reject")}
        buttonClassName={buttonClass("danger", "sm")}
        title={t("sessions.rejectTitle")}
        hint={t("sessions.rejectHint", { title })}
        submitLabel={t("sessions.reject")}
        variant="danger"
        act={async (reason) => {
          const result = await forget.mutateAsync({ id, expectedRevision: revision, mode: "soft", reason });
          if (!result.done) return result.message;
          router.refresh();
          return null;
        }}
      />
      {error ? (
        <p role="alert" className="w-full text-xs text-red-600">
          {error}
        </p>
      ) : null}
    </div>
  );
}
