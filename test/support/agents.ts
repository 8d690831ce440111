import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Session } from "next-auth";
import type { ApiKeyPermission } from "~/db/schema";
import type { Database } from "~/db/types";
import { appRouter } from "~/server/api/root";
import { retryAfterMeta } from "~/server/api/trpc-http";
import { addUserToTenant, registerAccount } from "~/server/auth/accounts";
import { createApiKey } from "~/server/auth/api-keys";
import { newId } from "~/server/ids";

export const ALL_PERMISSIONS: ApiKeyPermission[] = ["memory:read", "memory:write", "memory:forget", "messages:write"];

/** A fresh organisation: its admin (first account or open sign-up) and one member. */
export async function createOrg(db: Database) {
  const tag = newId("t").slice(2, 10);
  const admin = await registerAccount(db, {
    email: `admin-${tag}@example.com`,
    password: "admin password",
    name: `Admin ${tag}`,
    openSignup: true,
  });
  const member = await addUserToTenant(db, {
    email: `member-${tag}@example.com`,
    password: "member password",
    role: "member",
    tenantId: admin.tenantId,
    actorUserId: admin.user.id,
  });
  return { tenantId: admin.tenantId, adminId: admin.user.id, memberId: member.user.id };
}

/** An API key (secret returned) owned by `ownerUserId`; scopes default to the owner's user scope and any session. */
export async function createKey(
  db: Database,
  params: {
    tenantId: string;
    ownerUserId: string;
    permissions?: ApiKeyPermission[];
    scopes?: string[];
    rateLimitPerMinute?: number;
    expiresAt?: Date;
  },
) {
  return createApiKey(db, {
    tenantId: params.tenantId,
    ownerUserId: params.ownerUserId,
    createdByUserId: params.ownerUserId,
    name: "test agent",
    scopes: params.scopes ?? [`user:${params.ownerUserId}`, "session:*"],
    permissions: params.permissions ?? ALL_PERMISSIONS,
    rateLimitPerMinute: params.rateLimitPerMinute ?? null,
    expiresAt: params.expiresAt ?? null,
  });
}

export type TrpcHttpBody = {
  result?: { data: unknown };
  error?: {
    message: string;
    code: number;
    data: { code: string; httpStatus: number; reason?: string; details?: Record<string, unknown>; stack?: unknown };
  };
};

/**
 * The real HTTP path of /api/trpc without a server: the fetch adapter with this database and the
 * route's response headers, so error shapes (formatter, status codes, Retry-After) are what an agent sees.
 */
export async function trpcHttp(
  db: Database,
  path: string,
  init: { method?: "GET" | "POST"; bearer?: string; body?: unknown; userId?: string } = {},
) {
  const headers = new Headers({ "content-type": "application/json" });
  if (init.bearer) headers.set("authorization", `Bearer ${init.bearer}`);
  const session: Session | null = init.userId
    ? { user: { id: init.userId, email: "x@example.com" }, expires: new Date(Date.now() + 3600_000).toISOString() }
    : null;
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const req = new Request(`http://localhost/api/trpc/${path}`, {
    method,
    headers,
    body: method === "POST" ? (typeof init.body === "string" ? init.body : JSON.stringify(init.body ?? {})) : undefined,
  });
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ db, headers: req.headers, getSession: async () => session }),
    responseMeta: retryAfterMeta,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as TrpcHttpBody };
}
