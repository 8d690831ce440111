"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Field, FormError, SubmitButton } from "~/components/form";

type TrpcErrorBody = { error?: { message?: string; data?: { zodError?: { fieldErrors?: Record<string, string[]> } } } };

export function SignUpForm() {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const form = new FormData(event.currentTarget);
    const input = { name: String(form.get("name") || "") || undefined, email: String(form.get("email")), password: String(form.get("password")) };
    const response = await fetch("/api/trpc/account.signUp", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(input) });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as TrpcErrorBody;
      const fields = body.error?.data?.zodError?.fieldErrors;
      const fieldMessage = fields ? Object.entries(fields).map(([k, v]) => `${k}: ${v.join(", ")}`).join("; ") : null;
      setError(fieldMessage || body.error?.message || "Could not create the account.");
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
      <Field label="Name" name="name" autoComplete="name" />
      <Field label="Email" name="email" type="email" autoComplete="email" required />
      <Field label="Password" name="password" type="password" autoComplete="new-password" minLength={8} required />
      <FormError message={error} />
      <SubmitButton pending={pending}>Create account</SubmitButton>
    </form>
  );
}
