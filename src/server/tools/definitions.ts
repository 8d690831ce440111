import {
  appendMessages,
  buildMemoryContext,
  currentRevisionOf,
  getMemoryCard,
  type MemoryCallContext,
  memoryContextInputSchema,
  memoryForget,
  memoryForgetInputSchema,
  type MemoryForgetResult,
  type MemoryCard,
  memorySearch,
  memorySearchInputSchema,
  memoryWrite,
  memoryWriteInputSchema,
  type MemoryWriteResult,
  recordRecalls,
  scopeAllowed,
} from "~/server/memory";
import type { z } from "zod";
import type { Database } from "~/db/types";
import type { ApiKey, ApiKeyPermission } from "~/db/schema";
import { buildAgentCallContext, type EffectiveScopes } from "~/server/auth/permissions";
import { badRequest, forbidden } from "~/server/errors";
import { trustedEvidenceIds } from "./evidence";
import { withTurnScopeNames } from "./turn-scope-names";
import { memoryGetInputSchema, messageAppendInputSchema, type Turn } from "./schemas";
import { inputProblems } from "~/server/validation";
import { type Principal } from "~/server/db-routing";
import { alreadyJson, contextAsJson, type ToolName, type ToolResults } from "./results";

/** Where a caller puts the turn's session, over either transport. */
const TURN_SESSION = "turn.sessionId (over MCP: params._meta.turn.sessionId or the X-Memory-Session-Id header)";

/** Read-your-writes is kept per API key. */
export const keyPrincipal = (apiKey: Pick<ApiKey, "id">): Principal => ({ type: "api_key", id: apiKey.id });

export type Call = {
  db: Database;
  apiKey: ApiKey;
  args: Record<string, unknown>;
  turn: Turn;
  idempotencyKey?: string;
  /** The key's scope limits for this call: read once (or handed over by the authentication that read them). */
  limits: () => Promise<EffectiveScopes>;
};

export type ToolDefinition<N extends ToolName> = {
  name: N;
  title: string;
  /** The key needs one of these; errors name the first. */
  permissions: readonly ApiKeyPermission[];
  readOnly: boolean;
  destructive: boolean;
  schema: z.ZodType;
  /** Properties of the service schema the model must not send (the host sends them on the envelope). */
  omit?: readonly string[];
  run: (call: Call) => Promise<ToolResults[N]>;
};

function parseArgs<S extends z.ZodType>(tool: ToolName, schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (!parsed.success)
    throw badRequest(
      "invalid_input",
      `${tool} input is invalid: ${inputProblems(parsed.error)}. See tools.list for the schema.`,
    );
  return parsed.data;
}

const context = async (call: Call) => buildAgentCallContext(call.db, call.apiKey, call.turn, await call.limits());

function requireReadableSession(ctx: MemoryCallContext, sessionId: string) {
  if (!scopeAllowed({ type: "session", id: sessionId }, ctx.readScopes)) {
    throw forbidden(
      "scope_not_readable",
      `This key may not read session:${sessionId}. Use a session its scopes cover, or ask an admin to add "session:*" to the key and its owner's grants.`,
      {
        scope: `session:${sessionId}`,
      },
    );
  }
}

/**
 * A batch refused for want of a write grant is an authorization failure, like a missing permission:
 * the agent gets 403 FORBIDDEN (reason scope_not_writable) naming the scopes, with every operation's
 * result in the details — not a 200 it might read past. Other refusals stay `done: false` answers.
 */
function forbidUnwritableWrite(result: MemoryWriteResult): MemoryWriteResult {
  if (result.done) return result;
  const refused = result.results.filter((r) => r.reason === "scope_not_writable");
  if (refused.length === 0) return result;
  const scopes = [...new Set(refused.flatMap((r) => (r.scope ? [r.scope] : [])))];
  throw forbidden(
    "scope_not_writable",
    `Nothing was written: this key may not write ${scopes.join(", ") || "the scope it named"}. Ask an admin for a write grant on it (for the key's owner, and in the key's scopes), or write a scope this key holds.`,
    { scopes, results: result.results },
  );
}

function forbidUnwritableForget(result: MemoryForgetResult): MemoryForgetResult {
  if (result.done || result.reason !== "scope_not_writable") return result;
  throw forbidden(
    "scope_not_writable",
    `Nothing was forgotten: ${result.message} Ask an admin for a write grant on that scope (for the key's owner, and in the key's scopes).`,
    { mode: result.mode },
  );
}

/** The sourceMessageIds a write cites, when its input is well-formed (else memoryWrite reports the problem). */
function citedMessageIds(args: unknown): string[] {
  const parsed = memoryWriteInputSchema.safeParse(args);
  if (!parsed.success) return [];
  return [...new Set(parsed.data.operations.flatMap((op) => ("node" in op && op.node.sourceMessageIds) || []))];
}

/** Idempotency key from the envelope, unless the arguments carry one (they must then agree). */
function withIdempotencyKey(
  tool: ToolName,
  args: Record<string, unknown>,
  key: string | undefined,
): Record<string, unknown> {
  if (key === undefined) return args;
  if (args.idempotencyKey !== undefined && args.idempotencyKey !== key) {
    throw badRequest(
      "idempotency_key_mismatch",
      `${tool}: idempotencyKey differs between the call and its arguments; send it once.`,
    );
  }
  return { ...args, idempotencyKey: key };
}

/** Each agent tool: its name, permission, input schema and what it runs. The registry (registry.ts) admits and calls them. */
export const TOOLS: { [N in ToolName]: ToolDefinition<N> } = {
  memory_search: {
    name: "memory_search",
    title: "Search memory",
    permissions: ["memory:read", "memory:write"],
    readOnly: true,
    destructive: false,
    schema: memorySearchInputSchema,
    async run(call) {
      const { db } = call;
      const ctx = await context(call);
      const result = await memorySearch(db, ctx, withTurnScopeNames("memory_search", call.args, ctx.defaults));
      // A listing of everything ("all: true") hands over every card alike: no recall to count.
      if (!result.enumerated)
        await recordRecalls(
          db,
          ctx.tenantId,
          [...result.exact, ...result.relevant].map((hit) => hit.id),
        );
      return alreadyJson(result);
    },
  },
  memory_get: {
    name: "memory_get",
    title: "Read one memory card",
    permissions: ["memory:read", "memory:write"],
    readOnly: true,
    destructive: false,
    schema: memoryGetInputSchema,
    async run(call) {
      const { db } = call;
      const ctx = await context(call);
      const input = parseArgs(
        "memory_get",
        memoryGetInputSchema,
        withTurnScopeNames("memory_get", call.args, ctx.defaults),
      );
      if (input.id !== undefined) {
        const card = await getMemoryCard(db, ctx, input.id);
        if (card.status === "active") {
          await recordRecalls(db, ctx.tenantId, [card.id]);
          return {
            found: true,
            node: card,
            message: `Memory ${card.id} (${card.key}) is active at revision ${card.revision}. To change it send targetId "${card.id}" with expectedRevision ${card.revision}.`,
          };
        }
        // An id from before an update names an old revision: lead to the card that is current now.
        const current = await currentRevisionOf(db, { tenantId: ctx.tenantId, lineageId: card.lineageId });
        const next = current
          ? `The current card of this memory is ${current.id} at revision ${current.revision}: to change it send targetId "${current.id}" with expectedRevision ${current.revision}.`
          : "Nothing of this memory is current any more, so there is nothing to change.";
        return {
          found: true,
          node: card,
          ...(current ? { currentId: current.id, currentRevision: current.revision } : {}),
          message: `Memory ${card.id} (${card.key}) is ${card.status} (revision ${card.revision}). ${next}`,
        };
      }
      const result = await memorySearch(db, ctx, {
        kinds: input.kind ? [input.kind] : undefined,
        itemKey: input.itemKey,
        key: input.key,
        types: input.type ? [input.type] : undefined,
        domain: input.domain,
        valueJson: input.valueJson,
        scopes: input.scope ? [input.scope] : undefined,
        limit: 2,
      });
      const hits = result.exact.filter((hit) => !input.scope || hit.scope === input.scope);
      const cards: MemoryCard[] = hits.map(({ matchedBy: _m, score: _s, ...card }) => card);
      if (cards.length === 0) {
        const warnings = result.warnings?.length ? ` ${result.warnings.join(" ")}` : "";
        return {
          found: false,
          message: `No active memory matches that lookup in scopes you can read.${warnings} Try memory_search (e.g. with all: true) before concluding it is not stored.`,
        };
      }
      if (cards.length > 1) {
        // Only two are read: "2 cards match" said there were two when there were six.
        const more = result.omitted.some((o) => o.reason === "over_limit") || result.omittedCount !== undefined;
        const count = more ? "More than one card matches (these are two of them)" : "2 cards match";
        return {
          found: false,
          candidates: cards,
          message: `${count}; call memory_get again with the id of the one you mean, or list them all with memory_search (kinds, all: true).`,
        };
      }
      const card = cards[0]!;
      await recordRecalls(db, ctx.tenantId, [card.id]);
      return {
        found: true,
        node: card,
        message: `Memory ${card.id} (${card.key}) is at revision ${card.revision}. To change it send targetId "${card.id}" with expectedRevision ${card.revision}.`,
      };
    },
  },
  memory_write: {
    name: "memory_write",
    title: "Save or change memory",
    permissions: ["memory:write"],
    readOnly: false,
    destructive: false,
    schema: memoryWriteInputSchema,
    omit: ["idempotencyKey", "value"],
    async run(call) {
      const { db, apiKey, turn, idempotencyKey } = call;
      const ctx = await context(call);
      const input = withIdempotencyKey(
        "memory_write",
        withTurnScopeNames("memory_write", call.args, ctx.defaults),
        idempotencyKey,
      );
      const cited = citedMessageIds(input);
      let trusted: string[] = [];
      if (cited.length) {
        if (!turn.sessionId) {
          throw badRequest(
            "session_required",
            `sourceMessageIds need the turn's session (the one message_append stored those messages in): send ${TURN_SESSION}, or omit sourceMessageIds.`,
          );
        }
        requireReadableSession(ctx, turn.sessionId);
        trusted = await trustedEvidenceIds(db, { tenantId: apiKey.tenantId, sessionId: turn.sessionId, ids: cited });
      }
      return forbidUnwritableWrite(await memoryWrite(db, { ...ctx, trustedMessageIds: trusted }, input));
    },
  },
  memory_forget: {
    name: "memory_forget",
    title: "Forget memory",
    permissions: ["memory:forget"],
    readOnly: false,
    destructive: true,
    schema: memoryForgetInputSchema,
    omit: ["idempotencyKey"],
    async run(call) {
      const { db, idempotencyKey } = call;
      const ctx = await context(call);
      const input = withIdempotencyKey(
        "memory_forget",
        withTurnScopeNames("memory_forget", call.args, ctx.defaults),
        idempotencyKey,
      );
      // memory:forget deletes within the key's writable reach (key scopes ∩ owner write grants),
      // whether or not the key may also write or read memory: a forget-only key found no card by id
      // (it could read none) while its selectors listed and deleted them.
      const limits = await call.limits();
      return forbidUnwritableForget(
        await memoryForget(
          db,
          { ...ctx, readScopes: [...ctx.readScopes, ...limits.write], writeScopes: limits.write },
          input,
        ),
      );
    },
  },
  memory_context: {
    name: "memory_context",
    title: "Memory for this turn",
    permissions: ["memory:read", "memory:write"],
    readOnly: true,
    destructive: false,
    schema: memoryContextInputSchema,
    async run(call) {
      const { db, args, turn } = call;
      const input = parseArgs("memory_context", memoryContextInputSchema, args);
      const ctx = await context(call);
      const sessionId = input.sessionId ?? turn.sessionId;
      if (sessionId) requireReadableSession(ctx, sessionId);
      const result = await buildMemoryContext(db, ctx, { ...input, sessionId });
      await recordRecalls(db, ctx.tenantId, result.usedMemoryIds);
      return contextAsJson(result);
    },
  },
  message_append: {
    name: "message_append",
    title: "Capture this turn's messages",
    permissions: ["messages:write"],
    readOnly: false,
    destructive: false,
    schema: messageAppendInputSchema,
    async run(call) {
      const { db, apiKey, args, turn } = call;
      const input = parseArgs("message_append", messageAppendInputSchema, args);
      const sessionId = input.sessionId ?? turn.sessionId;
      if (!sessionId)
        throw badRequest("session_required", `message_append needs a session: send sessionId, or ${TURN_SESSION}.`);
      const limits = await call.limits();
      if (!scopeAllowed({ type: "session", id: sessionId }, limits.write)) {
        throw forbidden(
          "scope_not_writable",
          `This key may not write session:${sessionId}. Add "session:*" to the key's scopes; its owner needs a write grant for it too.`,
          {
            scope: `session:${sessionId}`,
          },
        );
      }
      const ctx = await context(call);
      const { messages } = await appendMessages(
        db,
        { tenantId: apiKey.tenantId, actor: { type: "api_key", id: apiKey.id } },
        {
          sessionId,
          userScopeId: ctx.defaults.user?.id ?? null,
          workspaceId: turn.workspaceId ?? null,
          messages: input.messages.map((m) => ({ ...m, createdAt: m.createdAt ? new Date(m.createdAt) : undefined })),
        },
      );
      const fresh = messages.filter((m) => !m.duplicate).length;
      return {
        sessionId,
        messageIds: messages.map((m) => m.id),
        messages: messages.map((m) => ({
          id: m.id,
          role: m.role,
          duplicate: m.duplicate,
          createdAt: m.createdAt.toISOString(),
        })),
        message: `Stored ${fresh} new message(s)${fresh < messages.length ? `, ${messages.length - fresh} already stored` : ""} in session ${sessionId}. Cite messageIds in memory_write node.sourceMessageIds with turn.sessionId "${sessionId}".`,
      };
    },
  },
};
