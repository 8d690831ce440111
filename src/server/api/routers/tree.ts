import { z } from "zod";
import { buildUserCallContext } from "~/server/auth/permissions";
import {
  getGlobalStats,
  getHotTopics,
  getTopicSummary,
  readableSessions,
  searchBySession,
  searchChunks,
} from "~/server/tree";
import { forbidden } from "~/server/errors";
import { createTRPCRouter, tenantProcedure } from "../trpc";

/** The memory tree's retrieval API (docs/memory-tree.md) for people in the dashboard. */
const treeProcedure = tenantProcedure.use(async ({ ctx, next }) => {
  // Grants from the primary, even when the retrieval runs on a read replica (a revocation ends at once).
  const memory = await buildUserCallContext(ctx.primaryDb, {
    tenantId: ctx.tenant.id,
    userId: ctx.user.id,
    role: ctx.tenant.role,
  });
  return next({ ctx: { sessions: readableSessions(memory) } });
});

/** Topics summarise every conversation of the organisation, so they need read access to all sessions. */
const topicsProcedure = treeProcedure.use(({ ctx, next }) => {
  if (ctx.sessions)
    throw forbidden(
      "scope_not_readable",
      "Topics summarise every conversation of the organisation: reading them needs a read grant on session:*. Ask an admin for one.",
      { scope: "session:*" },
    );
  return next();
});

export const treeRouter = createTRPCRouter({
  search: treeProcedure
    .input(
      z.object({
        query: z.string().trim().min(1).max(500),
        limit: z.number().int().min(1).max(100).optional(),
        minScore: z.number().min(0).max(1).optional(),
        days: z.number().int().min(1).max(3650).optional(),
        topicId: z.string().max(100).optional(),
      }),
    )
    .query(({ ctx, input }) => searchChunks(ctx.db, { tenantId: ctx.tenant.id, ...input, sessionIds: ctx.sessions })),
  hotTopics: topicsProcedure
    .input(
      z
        .object({ limit: z.number().int().min(1).max(200).optional(), includeArchived: z.boolean().optional() })
        .optional(),
    )
    .query(({ ctx, input }) => getHotTopics(ctx.db, { tenantId: ctx.tenant.id, ...input })),
  topic: topicsProcedure
    .input(z.object({ topicId: z.string().min(1).max(100) }))
    .query(({ ctx, input }) => getTopicSummary(ctx.db, { tenantId: ctx.tenant.id, topicId: input.topicId })),
  session: treeProcedure
    .input(z.object({ sessionId: z.string().min(1).max(200), limit: z.number().int().min(1).max(1000).optional() }))
    .query(({ ctx, input }) => {
      if (ctx.sessions && !ctx.sessions.includes(input.sessionId))
        throw forbidden(
          "scope_not_readable",
          `You may not read session ${input.sessionId}. Ask an admin for a session grant.`,
        );
      return searchBySession(ctx.db, { tenantId: ctx.tenant.id, ...input });
    }),
  /** The organisation's chunk and topic totals: like topics, for readers of every session. */
  stats: topicsProcedure.query(({ ctx }) => getGlobalStats(ctx.db, { tenantId: ctx.tenant.id })),
});
