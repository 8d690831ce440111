import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "~/server/auth/password";
import {
  addMember,
  cancelInvitation,
  listInvitations,
  listMembers,
  removeMember,
  setMemberRole,
  signOutMemberEverywhere,
} from "~/server/dashboard/members";
import { createWorkspace, listWorkspaces, workspaceCreateSchema } from "~/server/dashboard/workspaces";
import { buildUserCallContext } from "~/server/auth/permissions";
import { deleteCustomKind, describeKind, eraseScopeMemory, listCustomKinds, saveCustomKind } from "~/server/memory";
import { createTRPCRouter, tenantAdminProcedure } from "../trpc";

const role = z.enum(["admin", "member"]);
const userId = z.string().min(1).max(100);
const actor = (ctx: { tenant: { id: string }; user: { id: string } }) => ({
  tenantId: ctx.tenant.id,
  actorUserId: ctx.user.id,
});
const auditActor = (ctx: { tenant: { id: string }; user: { id: string } }) => ({
  tenantId: ctx.tenant.id,
  actor: { type: "user" as const, id: ctx.user.id },
});

/** Organisation administration for the dashboard. Every procedure needs the admin role (FORBIDDEN otherwise). */
export const adminRouter = createTRPCRouter({
  members: createTRPCRouter({
    list: tenantAdminProcedure.query(({ ctx }) => listMembers(ctx.db, ctx.tenant.id)),
    add: tenantAdminProcedure
      .input(
        z.object({
          email: z.string().trim().email().max(320),
          role,
          name: z.string().trim().min(1).max(120).optional(),
          password: z.string().min(MIN_PASSWORD_LENGTH).max(200).optional(),
        }),
      )
      .mutation(({ ctx, input }) => addMember(ctx.db, { ...actor(ctx), ...input })),
    setRole: tenantAdminProcedure
      .input(z.object({ userId, role }))
      .mutation(({ ctx, input }) => setMemberRole(ctx.db, { ...actor(ctx), ...input })),
    remove: tenantAdminProcedure
      .input(z.object({ userId }))
      .mutation(({ ctx, input }) => removeMember(ctx.db, { ...actor(ctx), ...input })),
    /** Invitations of people with an account already, not yet accepted. */
    invitations: tenantAdminProcedure.query(({ ctx }) => listInvitations(ctx.db, ctx.tenant.id)),
    cancelInvitation: tenantAdminProcedure
      .input(z.object({ email: z.string().trim().email().max(320) }))
      .mutation(({ ctx, input }) => cancelInvitation(ctx.db, { ...actor(ctx), ...input })),
    /** Ends every dashboard session of a member (their next request is signed out). */
    signOutEverywhere: tenantAdminProcedure
      .input(z.object({ userId }))
      .mutation(({ ctx, input }) => signOutMemberEverywhere(ctx.db, { ...actor(ctx), ...input })),
  }),

  workspaces: createTRPCRouter({
    list: tenantAdminProcedure.query(({ ctx }) => listWorkspaces(ctx.db, { tenantId: ctx.tenant.id })),
    create: tenantAdminProcedure
      .input(workspaceCreateSchema)
      .mutation(({ ctx, input }) => createWorkspace(ctx.db, { ...actor(ctx), input })),
  }),

  /** Erases a person's profile (optionally with their conversations) or a workspace, for good. */
  eraseMemory: tenantAdminProcedure
    .input(
      z.object({
        scope: z.string().trim().min(1).max(220),
        conversations: z.boolean().optional(),
        reason: z.string().trim().min(1).max(500),
      }),
    )
    .mutation(async ({ ctx, input }) =>
      eraseScopeMemory(
        ctx.db,
        await buildUserCallContext(ctx.db, { tenantId: ctx.tenant.id, userId: ctx.user.id, role: ctx.tenant.role }),
        input,
      ),
    ),

  kinds: createTRPCRouter({
    /** This organisation's custom kinds (built-ins are listed by memory.kinds). */
    list: tenantAdminProcedure.query(async ({ ctx }) =>
      (await listCustomKinds(ctx.db, ctx.tenant.id)).map(describeKind),
    ),
    /** Creates or replaces a custom kind from its JSON definition (validated by the kind registry). */
    save: tenantAdminProcedure
      .input(z.object({ definition: z.record(z.string(), z.unknown()) }))
      .mutation(async ({ ctx, input }) => {
        const def = await saveCustomKind(ctx.db, auditActor(ctx), input.definition);
        return { kind: def.kind, key: def.key };
      }),
    remove: tenantAdminProcedure
      .input(z.object({ kind: z.string().min(1).max(64) }))
      .mutation(async ({ ctx, input }) => {
        const removed = await deleteCustomKind(ctx.db, auditActor(ctx), input.kind);
        return { kind: removed.kind };
      }),
  }),
});
