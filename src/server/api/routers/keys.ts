import { z } from "zod";
import { forbidden } from "~/server/errors";
import { apiKeyCreateSchema, issueApiKey, listApiKeys, revokeApiKey } from "~/server/auth/api-keys";
import { createTRPCRouter, tenantProcedure } from "../trpc";

/**
 * API keys in the dashboard: members manage their own keys, admins every key of the organisation
 * (including keys they create for service agents owned by another member). The secret is returned
 * once, by `create`; lists never carry hashes or secrets.
 */
export const keysRouter = createTRPCRouter({
  list: tenantProcedure
    .input(z.object({ ownerUserId: z.string().min(1).max(100).optional() }).optional())
    .query(({ ctx, input }) => {
      const ownerUserId = ctx.tenant.role === "admin" ? input?.ownerUserId : ctx.user.id;
      if (ctx.tenant.role !== "admin" && input?.ownerUserId && input.ownerUserId !== ctx.user.id) {
        throw forbidden("admin_required", "Members see only their own keys; ask an admin.");
      }
      return listApiKeys(ctx.db, { tenantId: ctx.tenant.id, ownerUserId });
    }),
  create: tenantProcedure
    .input(apiKeyCreateSchema)
    .mutation(({ ctx, input }) => issueApiKey(ctx.db, { tenantId: ctx.tenant.id, actorUserId: ctx.user.id, input })),
  revoke: tenantProcedure
    .input(z.object({ keyId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) =>
      revokeApiKey(ctx.db, { tenantId: ctx.tenant.id, keyId: input.keyId, actorUserId: ctx.user.id }),
    ),
});
