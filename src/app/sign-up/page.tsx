import Link from "next/link";
import { redirect } from "next/navigation";
import { getDb } from "~/db/client";
import { env } from "~/env";
import { countUsers } from "~/server/auth/accounts";
import { getServerAuthSession } from "~/server/auth/config";
import { AuthCard } from "~/components/auth-card";
import { pageTitle } from "~/i18n/metadata";
import { getI18n } from "~/i18n/server";
import { SignUpForm } from "./sign-up-form";

export const dynamic = "force-dynamic";
export const generateMetadata = pageTitle("auth.signUpTitle");

export default async function SignUpPage() {
  if (await getServerAuthSession()) redirect("/");
  const emptyInstall = (await countUsers(await getDb())) === 0;
  const { t } = await getI18n();
  if (!emptyInstall && !env.MEMORY_OPEN_SIGNUP) {
    return (
      <AuthCard title={t("auth.signUpClosed")} subtitle={t("auth.signUpClosedHint")}>
        <Link href="/sign-in" className="text-sm font-medium text-indigo-600 hover:underline">
          {t("auth.backToSignIn")}
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title={emptyInstall ? t("auth.createFirstAdmin") : t("auth.createAccount")}
      subtitle={emptyInstall ? t("auth.firstAdminHint") : undefined}
    >
      <SignUpForm />
    </AuthCard>
  );
}
