import Link from "next/link";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { getDb } from "~/db/client";
import { env } from "~/env";
import { pageTitle } from "~/i18n/metadata";
import { getI18n } from "~/i18n/server";
import { countUsers } from "~/server/auth/accounts";
import { enabledExternalProviders, getServerAuthSession } from "~/server/auth/config";
import { AuthCard } from "~/components/auth-card";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const generateMetadata = pageTitle("auth.signInTitle");

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ created?: string }> }) {
  if (await getServerAuthSession()) redirect("/");
  const users = await countUsers(await getDb());
  const { created } = await searchParams;
  const { t } = await getI18n();
  return (
    <AuthCard
      title={t("auth.signInTitle")}
      subtitle={
        users === 0 ? (
          <>
            {t("auth.noAccounts")}{" "}
            <Link className="font-medium text-indigo-600 hover:underline" href="/sign-up">
              {t("auth.createFirstAdmin")}
            </Link>
          </>
        ) : env.MEMORY_OPEN_SIGNUP ? (
          <>
            {t("auth.newHere")}{" "}
            <Link className="font-medium text-indigo-600 hover:underline" href="/sign-up">
              {t("auth.createAccount")}
            </Link>
          </>
        ) : (
          t("auth.askAdmin")
        )
      }
    >
      <Suspense>
        <SignInForm providers={enabledExternalProviders()} notice={created ? t("auth.accountCreated") : undefined} />
      </Suspense>
    </AuthCard>
  );
}
