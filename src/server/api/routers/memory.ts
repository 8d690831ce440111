import { z } from "zod";
import { isTimeZone } from "~/i18n/config";
import { buildUserCallContext } from "~/server/auth/permissions";
import { listAuditEvents, auditFilterSchema, AUDIT_PAGE } from "~/server/dashboard/audit";
import { cardFilterSchema } from "~/server/dashboard/card-filter";
import { getCardDetail, explainRecall } from "~/server/dashboard/card-detail";
import { browseCards, cardFacets, categoryTree, CARD_PAGE } from "~/server/dashboard/cards";
import { canReadAllSessions, requireReadableScopes } from "~/server/dashboard/scope-access";
import { listScopeChoices } from "~/server/dashboard/scope-choices";
import { labelScopes, requireKnownScopes } from "~/server/dashboard/scope-labels";
import { previewRecall } from "~/server/dashboard/recall-preview";
import { getSessionDetail, listReadableSessions } from "~/server/dashboard/sessions";
import { getDashboardStats } from "~/server/dashboard/stats";
import { listTopics } from "~/server/dashboard/topics";
import { EXPORT_PAGE, exportCardsPage, importCards, IMPORT_LIMITS } from "~/server/dashboard/transfer";
import {
  describeKind,
  eraseSession,
  formatScope,
  loadKindRegistry,
  memoryForget,
  memorySearch,
  memoryWrite,
  parseScope,
  previewCreate,
  restoreCard,
  scopeAllowed,
  SEARCH_LIMITS,
  type writeOperationSchema,
} from "~/server/memory";
import { CARD_STATUSES } from "~/db/schema";
import { createTRPCRouter, tenantProcedure } from "../trpc";

/**
 * The dashboard's memory procedures. Every one acts as the signed-in person through
 * buildUserCallContext: admins read and write every scope, members their grants; every query is
 * narrowed to ctx.memory.readScopes before it touches a row. The scopes are read on the primary
 * (ctx.primaryDb), also when the listing runs on a read replica: a revoked grant ends at once.
 */
export const memoryProcedure = tenantProcedure.use(async ({ ctx, next }) =>
  next({
    ctx: {
      memory: await buildUserCallContext(ctx.primaryDb, {
        tenantId: ctx.tenant.id,
        userId: ctx.user.id,
        role: ctx.tenant.role,
      }),
    },
  }),
);

const cursor = z.string().max(500).nullish();
type WriteOperationInput = z.input<typeof writeOperationSchema>;
/** Checked in full by memoryWrite (which reports every problem at once); typed here for the client. */
const writeOperation = z.custom<WriteOperationInput>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "each operation is an object",
);

export const memoryRouter = createTRPCRouter({
  /** What the viewer may read and write, for scope pickers and "you can't see this" notes. */
  scopes: memoryProcedure.query(({ ctx }) => ({
    role: ctx.tenant.role,
    userId: ctx.user.id,
    ownScope: `user:${ctx.user.id}`,
    read: ctx.memory.readScopes.map(formatScope),
    write: ctx.memory.writeScopes.map(formatScope),
  })),

  /** The people, workspaces and recent sessions the viewer may write, named, for the scope pickers. */
  scopeChoices: memoryProcedure.query(({ ctx }) =>
    listScopeChoices(ctx.db, { tenantId: ctx.tenant.id, allowed: ctx.memory.writeScopes }),
  ),

  /** Names for scope ids (person, workspace, session owner); scopes the viewer cannot read stay ids. */
  scopeLabels: memoryProcedure
    .input(z.object({ scopes: z.array(z.string().max(220)).max(500) }))
    .query(async ({ ctx, input }) => {
      const readable = input.scopes.filter((text) => {
        try {
          return scopeAllowed(parseScope(text), ctx.memory.readScopes);
        } catch {
          return false;
        }
      });
      return [...(await labelScopes(ctx.db, { tenantId: ctx.tenant.id, scopes: readable })).values()];
    }),

  /** The kind registry (built-ins + this organisation's custom kinds) for the create form. */
  kinds: memoryProcedure.query(async ({ ctx }) => {
    const registry = await loadKindRegistry(ctx.db, ctx.tenant.id);
    return registry.all.map(describeKind);
  }),

  browse: memoryProcedure
    .input(
      z.object({
        filter: cardFilterSchema.default({}),
        cursor,
        limit: z.number().int().min(1).max(CARD_PAGE.max).optional(),
      }),
    )
    .query(({ ctx, input }) =>
      browseCards(ctx.db, { tenantId: ctx.tenant.id, readScopes: ctx.memory.readScopes, ...input }),
    ),

  facets: memoryProcedure.query(({ ctx }) =>
    cardFacets(ctx.db, { tenantId: ctx.tenant.id, readScopes: ctx.memory.readScopes }),
  ),

  categoryTree: memoryProcedure
    .input(z.object({ statuses: z.array(z.enum(CARD_STATUSES)).optional() }).default({}))
    .query(({ ctx, input }) =>
      categoryTree(ctx.db, { tenantId: ctx.tenant.id, readScopes: ctx.memory.readScopes, statuses: input.statuses }),
    ),

  /** Hybrid search as an agent would run it (memory_search), with each hit's score components. */
  search: memoryProcedure
    .input(
      z.object({
        queryText: z.string().trim().min(1).max(SEARCH_LIMITS.queryText),
        filter: cardFilterSchema
          .pick({ scopes: true, kinds: true, domain: true, category: true, types: true, tags: true, entities: true })
          .default({}),
        includeExpired: z.boolean().optional(),
        limit: z.number().int().min(1).max(SEARCH_LIMITS.maxLimit).optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { filter } = input;
      // Unreadable scopes are refused here with a clear message instead of inside the search.
      if (filter.scopes?.length) requireReadableScopes(ctx.memory.readScopes, filter.scopes);
      const result = await memorySearch(ctx.db, ctx.memory, {
        queryText: input.queryText,
        kinds: filter.kinds,
        domain: filter.domain,
        categoryPathPrefix: filter.category,
        types: filter.types,
        tags: filter.tags,
        entities: filter.entities,
        scopes: filter.scopes,
        includeExpired: input.includeExpired,
        limit: input.limit ?? SEARCH_LIMITS.maxLimit,
      });
      return {
        hits: [...result.exact, ...result.relevant],
        omitted: result.omitted,
        enumerated: result.enumerated,
        message: result.message,
      };
    }),

  card: memoryProcedure
    .input(z.object({ id: z.string().min(1).max(100) }))
    .query(({ ctx, input }) => getCardDetail(ctx.db, ctx.memory, input.id)),

  whyRecalled: memoryProcedure
    .input(z.object({ id: z.string().min(1).max(100), query: z.string().max(SEARCH_LIMITS.queryText).optional() }))
    .query(({ ctx, input }) => explainRecall(ctx.db, ctx.memory, input.id, input.query)),

  /** create / update / supersede / expire through memory_write; a person typed it, so it is explicit. */
  write: memoryProcedure
    .input(
      z.object({
        operations: z.array(writeOperation).min(1).max(50),
        idempotencyKey: z.string().min(8).max(200).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      // A person picks scopes from lists; one naming nobody (`user:bob@…`) or no workspace is refused, not stored.
      await requireKnownScopes(ctx.db, {
        tenantId: ctx.tenant.id,
        scopes: input.operations.flatMap((op) => ("scope" in op && typeof op.scope === "string" ? [op.scope] : [])),
      });
      return memoryWrite(ctx.db, ctx.memory, {
        ...input,
        operations: input.operations.map((op) => ({ ...op, explicitUserIntent: true })),
      });
    }),

  /** Before a create is saved: its refusal, or the slot it takes and the card there it would replace. */
  previewCreate: memoryProcedure
    .input(z.object({ operation: writeOperation }))
    .query(({ ctx, input }) => previewCreate(ctx.db, ctx.memory, { ...input.operation, explicitUserIntent: true })),

  /** Soft or hard forget of one card at the revision the viewer saw. */
  forget: memoryProcedure
    .input(
      z.object({
        id: z.string().min(1).max(100),
        expectedRevision: z.number().int().min(1),
        mode: z.enum(["soft", "hard"]),
        eraseEvidence: z.boolean().optional(),
        reason: z.string().trim().min(1).max(500),
      }),
    )
    .mutation(({ ctx, input }) =>
      memoryForget(ctx.db, ctx.memory, {
        ...input,
        eraseEvidence: input.mode === "hard" && input.eraseEvidence === true,
      }),
    ),

  /** Undo of a soft forget or an expiry, at the revision the viewer saw. */
  restore: memoryProcedure
    .input(
      z.object({
        id: z.string().min(1).max(100),
        expectedRevision: z.number().int().min(1),
        reason: z.string().trim().min(1).max(500),
      }),
    )
    .mutation(({ ctx, input }) => restoreCard(ctx.db, ctx.memory, input)),

  sessions: memoryProcedure
    .input(z.object({ cursor, limit: z.number().int().min(1).max(200).optional() }).default({}))
    .query(({ ctx, input }) =>
      listReadableSessions(ctx.db, { tenantId: ctx.tenant.id, readScopes: ctx.memory.readScopes, ...input }),
    ),

  session: memoryProcedure
    .input(
      z.object({
        sessionId: z.string().min(1).max(200),
        before: z.number().int().min(1).optional(),
        aroundMessageId: z.string().max(200).optional(),
      }),
    )
    .query(({ ctx, input }) =>
      getSessionDetail(ctx.db, {
        tenantId: ctx.tenant.id,
        readScopes: ctx.memory.readScopes,
        writeScopes: ctx.memory.writeScopes,
        ...input,
      }),
    ),

  /** Erases a whole conversation for good (its owner or an admin); the receipt counts what went. */
  eraseSession: memoryProcedure
    .input(z.object({ sessionId: z.string().min(1).max(200), reason: z.string().trim().min(1).max(500) }))
    .mutation(({ ctx, input }) => eraseSession(ctx.db, ctx.memory, input)),

  /**
   * "Try recall": the prompt block the session's own agent would get for a question, with its token
   * count. A mutation (it is not cached) that only reads: it may read on a replica.
   */
  tryRecall: memoryProcedure
    .meta({ kind: "read" })
    .input(
      z.object({
        sessionId: z.string().min(1).max(200).optional(),
        question: z.string().trim().min(1).max(8000),
        tokenBudget: z.number().int().min(200).max(32_000).optional(),
      }),
    )
    .mutation(({ ctx, input }) => previewRecall(ctx.db, ctx.memory, input)),

  audit: memoryProcedure
    .input(
      z.object({
        filter: auditFilterSchema.default({}),
        cursor,
        limit: z.number().int().min(1).max(AUDIT_PAGE.max).optional(),
      }),
    )
    .query(({ ctx, input }) =>
      listAuditEvents(ctx.db, {
        viewer: { tenantId: ctx.tenant.id, role: ctx.tenant.role, readScopes: ctx.memory.readScopes },
        ...input,
      }),
    ),

  stats: memoryProcedure
    .input(
      z
        .object({
          days: z.number().int().min(1).max(366).default(30),
          timeZone: z.string().refine(isTimeZone, "an IANA time zone").default("UTC"),
        })
        .default({ days: 30, timeZone: "UTC" }),
    )
    .query(({ ctx, input }) => {
      const admin = ctx.tenant.role === "admin";
      return getDashboardStats(ctx.db, {
        tenantId: ctx.tenant.id,
        readScopes: ctx.memory.readScopes,
        allEvents: admin,
        searchesOf: admin ? undefined : ctx.user.id,
        ...input,
      });
    }),

  /** Memory-tree topics; they summarise conversations, so they need read access to every session. */
  topics: memoryProcedure
    .input(z.object({ limit: z.number().int().min(1).max(500).optional() }).default({}))
    .query(async ({ ctx, input }) => {
      if (!canReadAllSessions(ctx.memory.readScopes)) return { visible: false, topics: [] };
      return { visible: true, topics: await listTopics(ctx.db, { tenantId: ctx.tenant.id, limit: input.limit }) };
    }),

  /** One page of a JSONL export (the download route streams page after page). */
  exportPage: memoryProcedure
    .input(
      z.object({
        scopes: z.array(z.string().max(220)).max(20).optional(),
        statuses: z.array(z.enum(CARD_STATUSES)).optional(),
        includeEvidence: z.boolean().default(false),
        cursor,
        limit: z.number().int().min(1).max(EXPORT_PAGE.max).optional(),
      }),
    )
    .query(({ ctx, input }) =>
      exportCardsPage(ctx.db, {
        tenantId: ctx.tenant.id,
        readScopes: ctx.memory.readScopes,
        ...input,
        after: input.cursor,
      }),
    ),

  /** JSONL import, a chunk of lines per call (the page sends the file in chunks and shows progress). */
  import: memoryProcedure
    .input(
      z.object({
        lines: z
          .array(z.string().max(IMPORT_LIMITS.lineChars * 2))
          .min(1)
          .max(IMPORT_LIMITS.linesPerCall),
        firstLineNumber: z.number().int().min(1).default(1),
        dryRun: z.boolean(),
        onConflict: z.enum(["skip", "supersede"]).default("skip"),
      }),
    )
    .mutation(({ ctx, input }) => importCards(ctx.db, ctx.memory, input)),
});
