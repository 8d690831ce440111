"use client";

import Link from "next/link";
import { useI18n } from "~/i18n/client";
import { LanguageSwitch } from "./language-switch";

/** The centred card the sign-in and sign-up pages share, with the language switch under it. */
export function AuthCard({
  title,
  subtitle,
  children,
}: {
  title: string;
  subtitle?: React.ReactNode;
  children: React.ReactNode;
}) {
  const { t } = useI18n();
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <Link href="/" className="mb-8 flex items-center justify-center gap-2 text-lg font-semibold">
          <LogoMark />
          {t("app.name")}
        </Link>
        <div className="rounded-2xl border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
          <h1 className="text-xl font-semibold">{title}</h1>
          {subtitle ? <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{subtitle}</p> : null}
          <div className="mt-6">{children}</div>
        </div>
        <LanguageSwitch className="mt-6 justify-center" />
      </div>
    </main>
  );
}

export function LogoMark() {
  return (
    <span aria-hidden className="grid h-7 w-7 place-items-center rounded-lg bg-indigo-600 text-sm font-bold text-white">
      M
    </span>
  );
}
