"use client";

import { ErrorState, buttonClass } from "~/components/ui";
import { useI18n } from "~/i18n/client";

/** Any page of the dashboard that fails to render: the server's sentence and a retry. */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const { t } = useI18n();
  return (
    <ErrorState
      title={t("common.error")}
      // Server errors reach the browser without their text in production; the digest finds them in the server log.
      message={error.digest ? t("common.serverError", { digest: error.digest }) : error.message || t("common.error")}
      action={
        <button type="button" onClick={reset} className={buttonClass("secondary", "sm")}>
          {t("common.retry")}
        </button>
      }
    />
  );
}
