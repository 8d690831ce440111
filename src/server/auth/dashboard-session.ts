import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "~/db/client";
import { TENANT_COOKIE } from "./tenant-cookie";
import { listMemberships } from "./accounts";
import { getServerAuthSession } from "./config";

/**
 * For dashboard server components: the signed-in user and the organisation they are looking at.
 * Signed-out visitors go to sign-in; one call per request (React cache).
 */
export const requireDashboardMember = cache(async () => {
  const session = await getServerAuthSession();
  if (!session?.user?.id) redirect("/sign-in");
  const db = await getDb();
  const memberships = await listMemberships(db, session.user.id, session.user.onlyTenantId);
  if (memberships.length === 0) redirect("/sign-in?error=AccessDenied");
  const wanted = (await cookies()).get(TENANT_COOKIE)?.value;
  const current = memberships.find((m) => m.tenantId === wanted) ?? memberships[0]!;
  return { db, user: session.user, memberships, tenant: current };
});
