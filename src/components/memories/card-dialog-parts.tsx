"use client";

import { useI18n } from "~/i18n/client";
import { buttonClass, inputClass, requiredLabelClass } from "../ui";

/** The reason field of the card dialogs (required to forget, optional elsewhere). */
export function ReasonInput({
  value,
  onChange,
  required,
}: {
  value: string;
  onChange: (value: string) => void;
  required: boolean;
}) {
  const { t } = useI18n();
  return (
    <label className="block text-sm">
      <span className={required ? `font-medium ${requiredLabelClass}` : "font-medium"}>{t("field.reason")}</span>
      <input
        required={required}
        maxLength={500}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={t("card.reasonHint")}
        className={`mt-1 ${inputClass}`}
      />
    </label>
  );
}

/** Cancel and submit, as every card dialog ends. */
export function DialogFooter({
  submitLabel,
  onCancel,
  busy,
  variant = "primary",
}: {
  submitLabel: string;
  onCancel: () => void;
  busy: boolean;
  variant?: "primary" | "danger";
}) {
  const { t } = useI18n();
  return (
    <div className="mt-4 flex justify-end gap-2">
      <button type="button" onClick={onCancel} className={buttonClass("ghost")}>
        {t("common.cancel")}
      </button>
      <button type="submit" disabled={busy} className={buttonClass(variant)}>
        {busy ? t("common.working") : submitLabel}
      </button>
    </div>
  );
}
