import { z } from "zod";
import { grantListSchema, grantSetSchema, listGrants, removeGrant, setGrant } from "~/server/auth/scope-grants";
import { createTRPCRouter, tenantAdminProcedure } from "../trpc";

/** Scope grants (admin only): who — a person or an API key — may read / write which scope. Audited. */
export const grantsRouter = createTRPCRouter({
  list: tenantAdminProcedure
    .input(grantListSchema.optional())
    .query(({ ctx, input }) => listGrants(ctx.db, { tenantId: ctx.tenant.id, ...input })),
  set: tenantAdminProcedure
    .input(grantSetSchema)
    .mutation(({ ctx, input }) => setGrant(ctx.db, { tenantId: ctx.tenant.id, actorUserId: ctx.user.id, input })),
  remove: tenantAdminProcedure
    .input(z.object({ grantId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) =>
      removeGrant(ctx.db, { tenantId: ctx.tenant.id, actorUserId: ctx.user.id, grantId: input.grantId }),
    ),
});
