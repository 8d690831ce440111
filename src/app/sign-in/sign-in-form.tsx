"use client";

import { signIn } from "next-auth/react";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { Field, FormError, SubmitButton } from "~/components/form";
import { useI18n } from "~/i18n/client";
import type { MessageKey } from "~/i18n/translate";

/** next-auth's error codes → what to tell the person. */
const ERRORS: Record<string, MessageKey> = {
  CredentialsSignin: "auth.wrongPassword",
  AccessDenied: "auth.accessDenied",
  TooManyAttempts: "auth.tooManyAttempts",
};

export function SignInForm({ providers, notice }: { providers: { id: string; name: string }[]; notice?: string }) {
  const { t } = useI18n();
  const errorText = (code: string | null | undefined) => t(ERRORS[code ?? ""] ?? "auth.signInFailed");
  const router = useRouter();
  const params = useSearchParams();
  const callbackUrl = params.get("callbackUrl") ?? "/";
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(params.get("error") ? errorText(params.get("error")) : null);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const form = new FormData(event.currentTarget);
    const result = await signIn("credentials", {
      email: form.get("email"),
      password: form.get("password"),
      redirect: false,
    });
    setPending(false);
    if (!result || result.error) {
      setError(errorText(result?.error));
      return;
    }
    router.push(callbackUrl);
    router.refresh();
  }

  return (
    <div className="space-y-4">
      {notice ? (
        <p className="rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-300">
          {notice}
        </p>
      ) : null}
      <form onSubmit={onSubmit} className="space-y-4">
        <Field label={t("auth.email")} name="email" type="email" autoComplete="email" required />
        <Field label={t("auth.password")} name="password" type="password" autoComplete="current-password" required />
        <FormError message={error} />
        <SubmitButton pending={pending} pendingLabel={t("common.working")}>
          {t("auth.signInButton")}
        </SubmitButton>
      </form>
      {providers.length > 0 ? (
        <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
          {providers.map((p) => (
            <button
              key={p.id}
              type="button"
              onClick={() => void signIn(p.id, { callbackUrl })}
              className="w-full rounded-lg border border-zinc-300 px-4 py-2 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800"
            >
              {t("auth.continueWith", { name: p.name })}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
