import Link from "next/link";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { getDb } from "~/db/client";
import { env } from "~/env";
import { countUsers } from "~/server/auth/accounts";
import { enabledExternalProviders, getServerAuthSession } from "~/server/auth/config";
import { AuthCard } from "~/components/auth-card";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ created?: string }> }) {
  if (await getServerAuthSession()) redirect("/");
  const users = await countUsers(await getDb());
  const { created } = await searchParams;
  return (
    <AuthCard
      title="Sign in"
      subtitle={
        users === 0 ? (
          <>
            This install has no accounts yet.{" "}
            <Link className="font-medium text-indigo-600 hover:underline" href="/sign-up">
              Create the first admin account
            </Link>
            .
          </>
        ) : env.MEMORY_OPEN_SIGNUP ? (
          <>
            New here?{" "}
            <Link className="font-medium text-indigo-600 hover:underline" href="/sign-up">
              Create an account
            </Link>
          </>
        ) : (
          "Use the account an admin created for you."
        )
      }
    >
      <Suspense>
        <SignInForm providers={enabledExternalProviders()} notice={created ? "Account created. Sign in to continue." : undefined} />
      </Suspense>
    </AuthCard>
  );
}
