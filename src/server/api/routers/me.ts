import { listMemberships } from "~/server/auth/accounts";
import { closeAllSessionRecords } from "~/server/auth/session-records";
import { agentProcedure, createTRPCRouter, signedInProcedure, tenantProcedure } from "../trpc";

export const meRouter = createTRPCRouter({
  /** The signed-in person and the organisations they belong to. */
  get: signedInProcedure.query(async ({ ctx }) => ({
    user: ctx.user,
    memberships: await listMemberships(ctx.db, ctx.user.id, ctx.user.onlyTenantId),
  })),
  /** Signs the caller out on every device and browser: each of their sessions ends on its next request. */
  signOutEverywhere: signedInProcedure.mutation(async ({ ctx }) => ({ sessionsEnded: await closeAllSessionRecords(ctx.db, ctx.user.id) })),
  /** The organisation this request acts in, and the caller's role there. */
  tenant: tenantProcedure.query(({ ctx }) => ctx.tenant),
  /** For agents: which key is calling, what it may do. Never returns the hash. */
  agent: agentProcedure.query(({ ctx }) => ({
    keyId: ctx.apiKey.id,
    prefix: ctx.apiKey.prefix,
    name: ctx.apiKey.name,
    tenantId: ctx.apiKey.tenantId,
    scopes: ctx.apiKey.scopes,
    permissions: ctx.apiKey.permissions,
    expiresAt: ctx.apiKey.expiresAt,
  })),
});
