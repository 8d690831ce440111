"use client";

import { useI18n } from "~/i18n/client";
import type { ErasureReceipt } from "~/server/memory";
import { LocalTime } from "./local-time";

const COUNTS = [
  "revisionsRemoved",
  "embeddingsRemoved",
  "messagesRemoved",
  "summariesRemoved",
  "chunksRemoved",
  "treeSummariesRemoved",
  "topicsRebuilt",
  "topicsRemoved",
  "auditEventsScrubbed",
  "jobsRemoved",
] as const satisfies readonly (keyof ErasureReceipt)[];

/** What a hard delete removed, as counts (never content), and when. */
export function ErasureReceiptView({
  receipt,
  label,
  detail,
}: {
  receipt: ErasureReceipt;
  label: string;
  detail?: string;
}) {
  const { t } = useI18n();
  return (
    <>
      <dl aria-label={label} className="grid grid-cols-[1fr_auto] gap-x-6 gap-y-1">
        {COUNTS.map((name) => (
          <div key={name} className="contents">
            <dt className="text-zinc-500">{t(`receipt.${name}`)}</dt>
            <dd className="text-right tabular-nums">{receipt[name]}</dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-zinc-500">
        {t("receipt.erasedAt")} <LocalTime value={receipt.erasedAt} />
        {detail ? ` · ${detail}` : null}
      </p>
    </>
  );
}
