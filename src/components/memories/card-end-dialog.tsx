"use client";

import { useState } from "react";
import { errorMessage } from "~/trpc/react";
import { Dialog } from "../dialog";
import { FormError } from "../form";
import { DialogFooter, ReasonInput } from "./card-dialog-parts";

/**
 * A dialog that ends a card with a reason (expire, forget): `end` answers the error to show, or null
 * when the card ended (the dialog then closes).
 */
export function EndCardDialog({
  title,
  hint,
  submitLabel,
  reasonRequired,
  variant,
  busy,
  end,
  onClose,
}: {
  title: string;
  hint: string;
  submitLabel: string;
  reasonRequired: boolean;
  variant?: "primary" | "danger";
  busy: boolean;
  end: (reason: string) => Promise<string | null>;
  onClose: () => void;
}) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <Dialog open onClose={onClose} title={title}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          void end(reason.trim())
            .catch(errorMessage)
            .then((failure) => (failure === null ? onClose() : setError(failure)));
        }}
        className="space-y-3"
      >
        <p className="text-sm">{hint}</p>
        <ReasonInput value={reason} onChange={setReason} required={reasonRequired} />
        <FormError message={error} />
        <DialogFooter submitLabel={submitLabel} onCancel={onClose} busy={busy} variant={variant} />
      </form>
    </Dialog>
  );
}
