"use client";

import { useEffect, useState } from "react";
import { useI18n } from "~/i18n/client";
import { Dialog } from "../dialog";
import { buttonClass, inputClass } from "../ui";

export type NewKeySecret = { name: string; value: string; withoutReach: string[] };

/**
 * The one time a key's secret is shown. Until the person says they stored it, Esc, × or leaving the
 * page asks first: the secret cannot be shown again, so closing by accident would lose the key.
 */
export function KeySecretDialog({ secret, onClose }: { secret: NewKeySecret | null; onClose: () => void }) {
  // Keyed by the secret: each new key starts with "not copied" and no pending question.
  return secret ? <SecretShown key={secret.value} secret={secret} onClose={onClose} /> : null;
}

function SecretShown({ secret, onClose }: { secret: NewKeySecret; onClose: () => void }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  const [leaving, setLeaving] = useState(false);

  // A reload or a closed tab would lose the secret the same way; the browser asks in its own words.
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, []);

  return (
    <Dialog open onClose={() => setLeaving(true)} title={t("keys.secretTitle")}>
      <div className="space-y-3 text-sm">
        <p>{t("keys.secretHint", { name: secret.name })}</p>
        <div className="flex gap-2">
          <input
            readOnly
            aria-label={t("keys.secret")}
            value={secret.value}
            onFocus={(e) => e.target.select()}
            className={`font-mono text-xs ${inputClass}`}
          />
          <button
            type="button"
            className={buttonClass("secondary")}
            onClick={async () => {
              await navigator.clipboard.writeText(secret.value).catch(() => undefined);
              setCopied(true);
            }}
          >
            {copied ? t("keys.copied") : t("keys.copy")}
          </button>
        </div>
        {secret.withoutReach.length ? (
          <p
            role="note"
            className="rounded-lg bg-amber-50 px-3 py-2 text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
          >
            {t("keys.withoutReach", { scopes: secret.withoutReach.join(", ") })}
          </p>
        ) : null}
        {leaving ? (
          <div
            role="alert"
            className="space-y-3 rounded-lg border border-red-200 bg-red-50 px-3 py-3 text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
          >
            <p>{t("keys.leaveWarning")}</p>
            <div className="flex flex-wrap justify-end gap-2">
              <button type="button" autoFocus onClick={() => setLeaving(false)} className={buttonClass("secondary")}>
                {t("keys.leaveBack")}
              </button>
              <button type="button" onClick={onClose} className={buttonClass("danger")}>
                {t("keys.leaveConfirm")}
              </button>
            </div>
          </div>
        ) : (
          <div className="flex justify-end">
            <button type="button" onClick={onClose} className={buttonClass("primary")}>
              {t("keys.stored")}
            </button>
          </div>
        )}
      </div>
    </Dialog>
  );
}
