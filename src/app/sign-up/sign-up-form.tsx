"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field, FormError, SubmitButton } from "~/components/form";
import { useI18n } from "~/i18n/client";

type TrpcErrorBody = { error?: { message?: string; data?: { zodError?: { fieldErrors?: Record<string, string[]> } } } };

export function SignUpForm() {
  const { t } = useI18n();
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const form = new FormData(event.currentTarget);
    const input = {
      name: String(form.get("name") || "") || undefined,
      email: String(form.get("email")),
      password: String(form.get("password")),
    };
    const response = await fetch("/api/trpc/account.signUp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as TrpcErrorBody;
      const fields = body.error?.data?.zodError?.fieldErrors;
      const fieldMessage = fields
        ? Object.entries(fields)
            .map(([k, v]) => `${k}: ${v.join(", ")}`)
            .join("; ")
        : null;
      setError(fieldMessage || body.error?.message || t("auth.couldNotCreate"));
      setPending(false);
      return;
    }
    const result = await signIn("credentials", { email: input.email, password: input.password, redirect: false });
    setPending(false);
    if (!result || result.error) {
      router.push("/sign-in?created=1");
      return;
    }
    router.push("/");
    router.refresh();
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4">
      <Field label={t("auth.name")} name="name" autoComplete="name" />
      <Field label={t("auth.email")} name="email" type="email" autoComplete="email" required />
      <Field
        label={t("auth.password")}
        name="password"
        type="password"
        autoComplete="new-password"
        minLength={8}
        required
      />
      <FormError message={error} />
      <SubmitButton pending={pending} pendingLabel={t("common.working")}>
        {t("auth.signUpTitle")}
      </SubmitButton>
    </form>
  );
}
