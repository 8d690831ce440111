import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { listMemberships } from "~/server/auth/accounts";
import { answerInvitation, myInvitations } from "~/server/dashboard/members";
import { signOutEverywhere } from "~/server/auth/sign-out-everywhere";
import { forbidden } from "~/server/errors";
import { agentProcedure, createTRPCRouter, signedInProcedure, tenantProcedure } from "../trpc";

/**
 * An invitation is answered by the person themselves: not with a password another organisation's admin
 * chose (such a session opens that organisation only), since that admin may be the one signing in.
 */
function answer(
  ctx: { db: Parameters<typeof answerInvitation>[0]; user: { id: string; onlyTenantId?: string | null } },
  tenantId: string,
  accept: boolean,
) {
  if (ctx.user.onlyTenantId) {
    const message =
      "You signed in with a password another organisation's admin set for you. Sign in with GitHub or your identity provider (or a password the server's operator set) to answer invitations.";
    throw new TRPCError({
      code: "FORBIDDEN",
      message,
      cause: forbidden("password_set_by_another_organisation", message),
    });
  }
  return answerInvitation(ctx.db, { userId: ctx.user.id, tenantId, accept });
}

export const meRouter = createTRPCRouter({
  /** The signed-in person and the organisations they belong to. */
  get: signedInProcedure.query(async ({ ctx }) => ({
    user: ctx.user,
    memberships: await listMemberships(ctx.db, ctx.user.id, ctx.user.onlyTenantId),
  })),
  /** Organisations that invited the caller (they had an account already); they join by accepting. */
  invitations: signedInProcedure.query(({ ctx }) => (ctx.user.onlyTenantId ? [] : myInvitations(ctx.db, ctx.user.id))),
  acceptInvitation: signedInProcedure
    .input(z.object({ tenantId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => answer(ctx, input.tenantId, true)),
  declineInvitation: signedInProcedure
    .input(z.object({ tenantId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => answer(ctx, input.tenantId, false)),
  /** Signs the caller out on every device and browser: each of their sessions ends on its next request. */
  signOutEverywhere: signedInProcedure.mutation(({ ctx }) => signOutEverywhere(ctx.db, ctx.user.id)),
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
