import { z } from "zod";
import { getTenant, updateTenantPolicy } from "~/server/tenants/policy";
import { createTRPCRouter, tenantAdminProcedure, tenantProcedure } from "../trpc";

export const organizationRouter = createTRPCRouter({
  get: tenantProcedure.query(async ({ ctx }) => {
    const tenant = await getTenant(ctx.db, ctx.tenant.id);
    return {
      id: tenant.id,
      name: tenant.name,
      slug: tenant.slug,
      writePolicy: tenant.writePolicy,
      sensitivePolicy: tenant.sensitivePolicy,
      role: ctx.tenant.role,
    };
  }),
  updatePolicy: tenantAdminProcedure
    .input(
      z.object({
        writePolicy: z.enum(["any", "explicit-only"]).optional(),
        sensitivePolicy: z.enum(["reject", "redact"]).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const tenant = await updateTenantPolicy(ctx.db, {
        tenantId: ctx.tenant.id,
        actorUserId: ctx.user.id,
        policy: input,
      });
      return { writePolicy: tenant.writePolicy, sensitivePolicy: tenant.sensitivePolicy };
    }),
});
