import type { Session } from "next-auth";
import { createCaller } from "~/server/api/root";
import type { Database } from "~/db/types";

/** A server-side tRPC caller acting as a signed-in user, an API key, or nobody. */
export function callerAs(
  db: Database,
  as: {
    userId?: string;
    email?: string;
    bearer?: string;
    tenantId?: string;
    cookie?: string;
    onlyTenantId?: string;
  } = {},
) {
  const headers = new Headers();
  if (as.cookie) headers.set("cookie", as.cookie);
  if (as.bearer) headers.set("authorization", `Bearer ${as.bearer}`);
  if (as.tenantId) headers.set("x-tenant-id", as.tenantId);
  const session: Session | null = as.userId
    ? {
        user: {
          id: as.userId,
          email: as.email ?? "someone@example.com",
          ...(as.onlyTenantId ? { onlyTenantId: as.onlyTenantId } : {}),
        },
        expires: new Date(Date.now() + 3600_000).toISOString(),
      }
    : null;
  return createCaller({ db, headers, getSession: async () => session });
}
