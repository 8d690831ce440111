"use client";

import { useEffect, useRef } from "react";
import { buttonClass } from "./ui";

/**
 * A modal dialog on the native <dialog> element: focus is trapped and Escape or × call `onClose`
 * (the owner closes it, or asks first). Rendered only while `open`, so its form state starts fresh
 * each time.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  wide = false,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: React.ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (open && dialog && !dialog.open) dialog.showModal();
    if (!open && dialog?.open) dialog.close();
  }, [open]);
  if (!open) return null;
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // Chrome closes a dialog outright on a second Escape after a cancelled one; while the owner still
      // has it open (say, asking before a one-time secret goes), it stays open and the owner decides.
      onClose={(event) => {
        if (!event.currentTarget.isConnected) return;
        event.currentTarget.showModal();
        onClose();
      }}
      className={`m-auto w-[calc(100%-2rem)] rounded-2xl text-left border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-950/40 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100 ${wide ? "max-w-4xl" : "max-w-lg"}`}
    >
      <div className="flex items-center justify-between border-b border-zinc-200 px-5 py-3 dark:border-zinc-800">
        <h2 className="font-semibold">{title}</h2>
        <button
          type="button"
          onClick={onClose}
          aria-label="Close"
          className="rounded-lg px-2 py-1 text-zinc-500 hover:bg-zinc-100 dark:hover:bg-zinc-800"
        >
          ×
        </button>
      </div>
      <div className="max-h-[75vh] overflow-y-auto px-5 py-4">{children}</div>
    </dialog>
  );
}

/**
 * Asks before a destructive action on `target` (closed while it is null). Confirming closes the
 * dialog, then runs `onConfirm` with the target.
 */
export function ConfirmDialog<T>({
  target,
  onClose,
  title,
  message,
  confirmLabel,
  cancelLabel,
  pending,
  onConfirm,
}: {
  target: T | null;
  onClose: () => void;
  title: string;
  message: (target: T) => React.ReactNode;
  confirmLabel: string;
  cancelLabel: string;
  pending: boolean;
  onConfirm: (target: T) => Promise<unknown>;
}) {
  return (
    <Dialog open={target !== null} onClose={onClose} title={title}>
      {target !== null ? (
        <div className="space-y-3 text-sm">
          <p>{message(target)}</p>
          <div className="flex justify-end gap-2">
            <button type="button" onClick={onClose} className={buttonClass("ghost")}>
              {cancelLabel}
            </button>
            <button
              type="button"
              disabled={pending}
              className={buttonClass("danger")}
              onClick={async () => {
                onClose();
                await onConfirm(target);
              }}
            >
              {confirmLabel}
            </button>
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}
