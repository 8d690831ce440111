"use client";

import Link from "next/link";
import { useI18n } from "~/i18n/client";
import type { RouterOutputs } from "~/trpc/types";
import { JsonValue } from "../json-value";
import { LocalTime } from "../local-time";
import { buttonClass } from "../ui";

export type CreatePreview = Extract<RouterOutputs["memory"]["previewCreate"], { ok: true }>;

/**
 * Shown before a create that would take an occupied slot: which card it would replace, and why (one
 * card per scope, or the same item), with "replace" and "cancel". The server decided all of it
 * (memory.previewCreate); nothing here knows the slot rules.
 */
export function ReplaceWarning({
  preview,
  busy,
  onReplace,
  onCancel,
}: {
  preview: CreatePreview;
  busy: boolean;
  onReplace: () => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const card = preview.replaces;
  if (!card) return null;
  const why = preview.unchanged
    ? t("create.unchanged", { scope: preview.scope })
    : preview.itemized
      ? t("create.replaceItem", { kind: preview.kind, scope: preview.scope, item: preview.itemKey ?? "" })
      : t("create.replaceSingle", { kind: preview.kind, scope: preview.scope });
  return (
    <section
      role="alertdialog"
      aria-labelledby="replace-warning-title"
      aria-describedby="replace-warning-why"
      className="space-y-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm dark:border-amber-700 dark:bg-amber-950/40"
    >
      <h2 id="replace-warning-title" className="font-semibold">
        {preview.unchanged ? t("create.openExisting") : t("create.replaceTitle")}
      </h2>
      <p id="replace-warning-why">{why}</p>
      <div className="min-w-0 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
        <p className="font-medium break-words">{card.title}</p>
        <p className="mt-1 break-words whitespace-pre-wrap">{card.content}</p>
        <div className="mt-2">
          <JsonValue value={card.valueJson} />
        </div>
        <p className="mt-2 text-xs text-zinc-500">
          <span className="font-mono">{preview.key}</span> · {t("create.revision", { revision: card.revision })} ·{" "}
          <LocalTime value={card.updatedAt} />
        </p>
      </div>
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" onClick={onCancel} className={buttonClass("ghost")}>
          {t("common.cancel")}
        </button>
        {preview.unchanged ? (
          <Link href={`/memories/${card.id}`} className={buttonClass("primary")}>
            {t("create.openExisting")}
          </Link>
        ) : (
          <>
            <Link href={`/memories/${card.id}`} className={buttonClass("secondary")}>
              {t("create.openExisting")}
            </Link>
            <button type="button" disabled={busy} onClick={onReplace} className={buttonClass("danger")}>
              {busy ? t("common.working") : t("create.replaceConfirm")}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
