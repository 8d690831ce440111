import Link from "next/link";
import { redirect } from "next/navigation";
import { getDb } from "~/db/client";
import { env } from "~/env";
import { countUsers } from "~/server/auth/accounts";
import { getServerAuthSession } from "~/server/auth/config";
import { AuthCard } from "~/components/auth-card";
import { SignUpForm } from "./sign-up-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create account" };

export default async function SignUpPage() {
  if (await getServerAuthSession()) redirect("/");
  const emptyInstall = (await countUsers(await getDb())) === 0;
  if (!emptyInstall && !env.MEMORY_OPEN_SIGNUP) {
    return (
      <AuthCard title="Sign-up is closed" subtitle="An admin adds people to this organisation.">
        <Link href="/sign-in" className="text-sm font-medium text-indigo-600 hover:underline">
          Back to sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title={emptyInstall ? "Create the first admin account" : "Create an account"}
      subtitle={emptyInstall ? "This install is empty: the first account becomes the admin of its organisation." : undefined}
    >
      <SignUpForm />
    </AuthCard>
  );
}
