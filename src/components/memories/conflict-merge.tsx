"use client";

import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { MessageKey } from "~/i18n/messages/en";
import { FormError } from "../form";
import { LocalTime } from "../local-time";
import { Badge, buttonClass, type Tone } from "../ui";
import {
  conflictingFields,
  mergeCard,
  resolveMerge,
  type CardValues,
  type Choice,
  type FieldMerge,
  type FieldOutcome,
  type MergeField,
} from "./card-merge";
import { cardValues } from "./card-values";

/** The revision saved meanwhile, as the dialog names it. */
export type TheirRevision = Parameters<typeof cardValues>[0] & {
  revision: number;
  updatedByLabel: string;
  updatedAt: string;
};

const FIELD_LABEL: Record<MergeField, MessageKey> = {
  title: "field.title",
  content: "field.content",
  valueJson: "field.value",
  tags: "field.tags",
  entities: "field.entities",
  confidence: "field.confidence",
  importance: "field.importance",
  expiresAt: "field.expiresAt",
};
const OUTCOME_TONE: Record<Exclude<FieldOutcome, "unchanged">, Tone> = {
  theirs: "zinc",
  mine: "indigo",
  same: "zinc",
  combined: "green",
  conflict: "amber",
};

/** One version of one field, as text a person compares. */
function FieldValue({ field, value }: { field: MergeField; value: unknown }) {
  const { number } = useI18n();
  if (field === "expiresAt") return <LocalTime value={value as string | null} />;
  if (field === "confidence" || field === "importance")
    return <span className="tabular-nums">{number(value as number)}</span>;
  if (Array.isArray(value) && (field === "tags" || field === "entities"))
    return <span>{value.length ? value.join(", ") : "—"}</span>;
  if (value === null || value === undefined || value === "") return <span>—</span>;
  if (typeof value === "string") return <span className="whitespace-pre-wrap break-words">{value}</span>;
  return <pre className="font-mono text-xs whitespace-pre-wrap break-words">{JSON.stringify(value, null, 2)}</pre>;
}

/**
 * The conflict dialog's body: every field that differs between the revision the person started from,
 * the one saved meanwhile and theirs, what the next revision gets, and a choice for each field both
 * sides changed. Apply stays disabled until every such field is chosen: nothing is settled by guess.
 */
export function ConflictMerge({
  base,
  baseRevision,
  mine,
  current,
  busy,
  error,
  onApply,
  onDiscard,
}: {
  base: CardValues;
  baseRevision: number;
  mine: CardValues;
  current: TheirRevision;
  busy: boolean;
  error: string | null;
  onApply: (values: CardValues) => void;
  onDiscard: () => void;
}) {
  const { t } = useI18n();
  const [choices, setChoices] = useState<Partial<Record<MergeField, Choice>>>({});
  const theirs = cardValues(current);
  const merges = mergeCard(base, theirs, mine).filter((m) => m.outcome !== "unchanged");
  const open = conflictingFields(merges).filter((field) => !choices[field]);
  const resolved = resolveMerge(theirs, merges, choices);
  const label = (field: MergeField) => t(FIELD_LABEL[field]);

  return (
    <div className="space-y-4">
      <p className="text-sm">{t("card.conflictHint", { revision: current.revision, base: baseRevision })}</p>
      <p className="text-xs text-zinc-500">
        {t("card.savedBy", { revision: current.revision, actor: current.updatedByLabel })} ·{" "}
        <LocalTime value={current.updatedAt} />
      </p>
      <ul aria-label={t("card.mergeFields")} className="space-y-3">
        {merges.map((m) => (
          <MergeRow
            key={m.field}
            merge={m}
            label={label(m.field)}
            baseRevision={baseRevision}
            revision={current.revision}
            choice={choices[m.field]}
            onChoose={(choice) => setChoices({ ...choices, [m.field]: choice })}
          />
        ))}
      </ul>
      {open.length ? (
        <p
          role="note"
          className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
        >
          {t("card.chooseAll", { fields: open.map(label).join(", ") })}
        </p>
      ) : null}
      <FormError message={error} />
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" onClick={onDiscard} className={buttonClass("secondary")}>
          {t("card.discardMine")}
        </button>
        <button
          type="button"
          disabled={busy || resolved === null}
          onClick={() => resolved && onApply(resolved)}
          className={buttonClass("primary")}
        >
          {t("card.applyMine", { revision: current.revision })}
        </button>
      </div>
    </div>
  );
}

function MergeRow({
  merge,
  label,
  baseRevision,
  revision,
  choice,
  onChoose,
}: {
  merge: FieldMerge;
  label: string;
  baseRevision: number;
  revision: number;
  choice: Choice | undefined;
  onChoose: (choice: Choice) => void;
}) {
  const { t } = useI18n();
  const outcome = merge.outcome as Exclude<FieldOutcome, "unchanged">;
  const version = (heading: string, value: unknown, highlight: boolean) => (
    <div
      className={`min-w-0 rounded-lg p-2 ${highlight ? "bg-indigo-50 dark:bg-indigo-950/40" : "bg-zinc-50 dark:bg-zinc-950"}`}
    >
      <dt className="text-xs font-medium text-zinc-500">{heading}</dt>
      <dd className="mt-0.5 text-sm">
        <FieldValue field={merge.field} value={value} />
      </dd>
    </div>
  );
  return (
    <li aria-label={label} className="rounded-xl border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">{label}</h3>
        <Badge tone={OUTCOME_TONE[outcome]}>{t(`card.outcome.${outcome}`, { revision })}</Badge>
      </div>
      <dl className="grid gap-2 sm:grid-cols-3">
        {version(t("card.baseVersion", { revision: baseRevision }), merge.base, false)}
        {version(t("card.currentVersion", { revision }), merge.theirs, outcome === "theirs")}
        {version(t("card.yourVersion"), merge.mine, outcome === "mine")}
      </dl>
      {outcome === "conflict" ? (
        <fieldset className="mt-2 text-sm">
          <legend className="font-medium">{t("card.chooseLegend", { field: label, revision: revision + 1 })}</legend>
          <div className="mt-1 flex flex-wrap gap-4">
            <label className="flex items-center gap-1.5">
              <input
                type="radio"
                name={`merge-${merge.field}`}
                checked={choice === "theirs"}
                onChange={() => onChoose("theirs")}
              />
              {t("card.keepTheirs", { revision })}
            </label>
            <label className="flex items-center gap-1.5">
              <input
                type="radio"
                name={`merge-${merge.field}`}
                checked={choice === "mine"}
                onChange={() => onChoose("mine")}
              />
              {t("card.useMine")}
            </label>
          </div>
        </fieldset>
      ) : outcome === "combined" ? (
        <p className="mt-2 text-sm">
          <span className="font-medium">{t("card.mergeResult", { revision: revision + 1 })}</span>{" "}
          <FieldValue field={merge.field} value={merge.merged} />
        </p>
      ) : null}
    </li>
  );
}
