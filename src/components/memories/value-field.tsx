"use client";

import { useEffect, useRef } from "react";
import { useI18n } from "~/i18n/client";
import type { KindOption } from "~/trpc/types";
import { hintId, inputClass, Labeled } from "../ui";
import { guessValueMode, parseValue, type CardDraft, type ValueMode } from "./card-draft";
import { formValueHint } from "./write-refusal";

/**
 * The Value box with its "Text / JSON" toggle: the same reading for every kind (card-draft.ts). JSON
 * that does not parse is shown at the field and blocks the form (custom validity), so what was typed
 * is never saved as a string in its place.
 */
export function ValueField({
  id,
  draft,
  onChange,
  kind,
}: {
  id: string;
  draft: CardDraft;
  onChange: (draft: CardDraft) => void;
  kind?: KindOption;
}) {
  const { t } = useI18n();
  const box = useRef<HTMLTextAreaElement>(null);
  const parsed = parseValue(draft.value, draft.valueMode);
  const problem = parsed.ok ? null : t("card.valueBadJson", { error: parsed.error });
  useEffect(() => {
    box.current?.setCustomValidity(problem ?? "");
  }, [problem]);

  const choose = (mode: ValueMode) => onChange({ ...draft, valueMode: mode, valueModeChosen: true });
  const type = (text: string) =>
    onChange({ ...draft, value: text, valueMode: draft.valueModeChosen ? draft.valueMode : guessValueMode(text) });
  const option = (mode: ValueMode, label: string) => (
    <label
      className={`cursor-pointer rounded-md px-2.5 py-1 ${draft.valueMode === mode ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "text-zinc-600 dark:text-zinc-400"}`}
    >
      <input
        type="radio"
        name={`${id}-mode`}
        value={mode}
        checked={draft.valueMode === mode}
        onChange={() => choose(mode)}
        className="sr-only"
      />
      {label}
    </label>
  );
  const hint = [
    kind ? t("card.valueHint", { hint: formValueHint(t, kind) }) : null,
    draft.valueMode === "json" ? t("card.valueJsonHint") : t("card.valueTextHint"),
  ]
    .filter(Boolean)
    .join(" ");

  return (
    <Labeled id={id} label={t("field.value")} required={kind?.valueRequired ?? false} hint={hint}>
      <div
        role="radiogroup"
        aria-label={t("card.valueMode")}
        className="mb-1.5 inline-flex rounded-lg border border-zinc-300 p-0.5 text-xs font-medium dark:border-zinc-700"
      >
        {option("text", t("card.valueText"))}
        {option("json", "JSON")}
      </div>
      <textarea
        ref={box}
        id={id}
        aria-describedby={`${hintId(id)}${problem ? ` ${id}-problem` : ""}`}
        aria-invalid={problem ? true : undefined}
        rows={3}
        value={draft.value}
        onChange={(event) => type(event.target.value)}
        required={kind?.valueRequired}
        spellCheck={draft.valueMode === "text"}
        className={`font-mono ${inputClass}`}
      />
      {problem ? (
        <p id={`${id}-problem`} role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
          {problem}
        </p>
      ) : null}
    </Labeled>
  );
}
