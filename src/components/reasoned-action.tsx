"use client";

import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { errorMessage } from "~/trpc/react";
import { Dialog } from "./dialog";
import { FormError } from "./form";
import { buttonClass, inputClass, requiredLabelClass } from "./ui";

type ActionProps = {
  title: string;
  hint: React.ReactNode;
  submitLabel: string;
  variant: "primary" | "danger";
  /** Text the person types before a destructive action runs (a key, an id, an email). */
  confirm?: string;
  /** More fields, shown above the reason. */
  extra?: React.ReactNode;
  /** Runs the action with the reason: a sentence to show when it did not happen, null when it did. */
  act: (reason: string) => Promise<string | null>;
};

/**
 * A button that opens a dialog asking why (and, for what cannot be undone, a typed confirmation), then
 * runs `act`. The dialog closes when it succeeds and shows why when it did not. Its fields start empty
 * on every opening (the form is only mounted while the dialog is open).
 */
export function ReasonedAction({
  label,
  buttonClassName,
  onOpen,
  ...props
}: ActionProps & { label: string; buttonClassName: string; onOpen?: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => (onOpen?.(), setOpen(true))} className={buttonClassName}>
        {label}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={props.title}>
        <ReasonForm {...props} onDone={() => setOpen(false)} onCancel={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function ReasonForm({
  hint,
  submitLabel,
  variant,
  confirm,
  extra,
  act,
  onDone,
  onCancel,
}: ActionProps & { onDone: () => void; onCancel: () => void }) {
  const { t } = useI18n();
  const [reason, setReason] = useState("");
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit() {
    setError(null);
    setPending(true);
    try {
      const failure = await act(reason.trim());
      if (failure === null) onDone();
      else setError(failure);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setPending(false);
    }
  }

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      className="space-y-3"
    >
      <p className="text-sm">{hint}</p>
      {extra}
      <label className="block text-sm">
        <span className={`font-medium ${requiredLabelClass}`}>{t("field.reason")}</span>
        <input
          required
          maxLength={500}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          placeholder={t("card.reasonHint")}
          className={`mt-1 ${inputClass}`}
        />
      </label>
      {confirm !== undefined ? (
        <label className="block text-sm">
          <span className={`font-medium ${requiredLabelClass}`}>{t("card.typeToConfirm", { key: confirm })}</span>
          <input
            required
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            className={`mt-1 font-mono ${inputClass}`}
          />
        </label>
      ) : null}
      <FormError message={error} />
      <div className="mt-4 flex justify-end gap-2">
        <button type="button" onClick={onCancel} className={buttonClass("ghost")}>
          {t("common.cancel")}
        </button>
        <button
          type="submit"
          disabled={pending || (confirm !== undefined && typed !== confirm)}
          className={buttonClass(variant)}
        >
          {pending ? t("common.working") : submitLabel}
        </button>
      </div>
    </form>
  );
}
