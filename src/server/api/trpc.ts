import { initTRPC, TRPCError } from "@trpc/server";
import type { Session } from "next-auth";
import { z, ZodError } from "zod";
import type { Database } from "~/db/types";
import type { TenantRole } from "~/db/schema";
import { findMembership, listMemberships } from "~/server/auth/accounts";
import { authenticateAgentKey } from "~/server/auth/agent-auth";
import { admitMeteredAgentCall } from "~/server/auth/agent-call";
import { TENANT_COOKIE } from "~/server/auth/tenant-cookie";
import { badRequest, forbidden, knownServiceError, ServiceError } from "~/server/errors";
import { jsonShapeProblem } from "~/server/tools/limits";
import { TOOL_NAMES } from "~/server/tools/registry";
import { routeWork, type WorkKind } from "~/server/db-routing";
import { countingInside, recordRequest } from "~/server/metrics";
import { TENANT_HEADER } from "./tenant-header";

/**
 * Context: the database, the request headers and a lazy session reader. Nothing is resolved up
 * front, so the agent endpoint never looks at cookies and the dashboard never parses bearer keys.
 */
export type TRPCContext = {
  db: Database;
  headers: Headers;
  getSession: () => Promise<Session | null>;
};

export { TENANT_HEADER };

/**
 * A body that is not JSON (curl -d without a content type, a truncated body): what went wrong and what
 * to send instead; undefined for any other error.
 */
function notJsonMessage(code: TRPCError["code"], cause: unknown, message: string): string | undefined {
  const what =
    code === "UNSUPPORTED_MEDIA_TYPE"
      ? "The body was not sent as JSON."
      : code === "BAD_REQUEST" && cause instanceof SyntaxError
        ? `The body is not valid JSON (${message}).`
        : undefined;
  return (
    what &&
    `${what} Send one JSON object with the header Content-Type: application/json: the tool's arguments to tools.<name>, or {"name", "arguments"} to tools.call.`
  );
}

/**
 * A path tRPC does not know, or a known one with the wrong method, under `tools.`: the tools there
 * are, and how to call them; undefined otherwise.
 */
function toolPathMessage(
  code: TRPCError["code"],
  path: string | undefined,
): { message: string; reason: string } | undefined {
  if (!path?.startsWith("tools.")) return undefined;
  const name = path.slice("tools.".length);
  if (code === "NOT_FOUND") {
    return {
      reason: "unknown_tool",
      message: `There is no tool "${name}". The tools are ${TOOL_NAMES.join(", ")} (POST tools.<name>), tools.call and tools.list (GET).`,
    };
  }
  if (code === "METHOD_NOT_SUPPORTED") {
    return {
      reason: "wrong_method",
      message:
        name === "list" ? "tools.list is read with GET." : `Call ${path} with POST and its arguments as a JSON body.`,
    };
  }
  return undefined;
}

/**
 * What a procedure may declare about itself. `kind` overrides where its database work runs
 * (default: a query is a read, a mutation a write; see routeByKind).
 */
export type ProcedureMeta = { kind?: WorkKind };

const t = initTRPC
  .context<TRPCContext>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error, path }) {
      const cause = error.cause;
      // Unexpected failures may carry SQL or driver details: callers get a plain sentence instead.
      const internal = error.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof ServiceError);
      const notJson = notJsonMessage(error.code, cause, shape.message);
      const toolPath = cause instanceof ServiceError ? undefined : toolPathMessage(error.code, path);
      return {
        ...shape,
        message: internal
          ? "The server could not complete this request and changed nothing. Retry; if it keeps failing, report it to your admin."
          : (notJson ?? toolPath?.message ?? shape.message),
        data: {
          ...shape.data,
          // Never leak stack traces to clients.
          stack: undefined,
          reason:
            cause instanceof ServiceError
              ? cause.reason
              : cause instanceof ZodError
                ? "invalid_input"
                : notJson !== undefined
                  ? "invalid_body"
                  : toolPath?.reason,
          details: cause instanceof ServiceError ? cause.details : undefined,
          zodError: cause instanceof ZodError ? z.flattenError(cause) : null,
        },
      };
    },
  });

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Turns domain errors into tRPC errors with the same code, reason and sentence. */
const serviceErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = knownServiceError(result.error.cause);
    if (cause) throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  return result;
});

/** Every call counted and timed for /api/metrics, by procedure, with the reason of a failure. */
const observed = t.middleware(async ({ path, next }) => {
  const started = performance.now();
  const { value: result, counted } = await countingInside(() => next());
  // A tool that ran was counted by the registry (surface "tool"); counting it here too doubled it.
  if (counted) return result;
  const surface = path.startsWith("tools.") || path === "me.agent" ? "agent" : "dashboard";
  const cause = result.ok ? undefined : result.error.cause;
  const failure = result.ok
    ? undefined
    : cause instanceof ServiceError
      ? cause.reason
      : cause instanceof ZodError
        ? "invalid_input"
        : result.error.code.toLowerCase();
  recordRequest(surface, path, (performance.now() - started) / 1000, failure);
  return result;
});

export const publicProcedure = t.procedure.use(observed).use(serviceErrors);

/**
 * Dashboard input as a whole, checked before any schema runs (schemas and the database recurse and
 * fail on what follows as a server error): nesting and size by a loop, and text the database cannot
 * hold as sent — NUL, unpaired surrogates — refused with 400 instead of stored as U+FFFD or failing
 * inside the driver. Agents' tool calls have the same check with their own limits (tools/limits.ts).
 */
export const DASHBOARD_INPUT_LIMITS = { maxDepth: 32, maxNodes: 100_000 } as const;

const wellFormedInput = t.middleware(async ({ getRawInput, next }) => {
  const problem = jsonShapeProblem(await getRawInput(), DASHBOARD_INPUT_LIMITS);
  if (problem)
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: problem.message,
      cause: badRequest(problem.reason, problem.message),
    });
  return next();
});

/** Any dashboard procedure, signed in or not (sign-up): well-formed input only. */
export const dashboardProcedure = publicProcedure.use(wellFormedInput);

/** Signed in through next-auth (dashboard). */
export const signedInProcedure = dashboardProcedure.use(async ({ ctx, next }) => {
  const session = await ctx.getSession();
  if (!session?.user?.id) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first." });
  return next({ ctx: { user: session.user } });
});

function cookieTenantId(headers: Headers): string | undefined {
  const cookie = headers.get("cookie") ?? "";
  const match = cookie.match(new RegExp(`(?:^|;\\s*)${TENANT_COOKIE}=([^;]+)`));
  return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

const PASSWORD_OF_ANOTHER_ORGANISATION =
  "You signed in with a password another organisation's admin set for you; it opens that organisation only. Sign in with GitHub or your identity provider, or ask the server's operator to set your password (npm run memory -- users add <email> --password …).";

/**
 * A member of the organisation the request is about: the one the header names (refused when not a
 * member), else the dashboard's choice (cookie; a stale one falls back, as the pages do), else the
 * first membership.
 */
export const tenantProcedure = signedInProcedure
  .use(async ({ ctx, next }) => {
    const named = ctx.headers.get(TENANT_HEADER);
    let membership: { tenantId: string; role: TenantRole } | undefined;
    if (named) {
      membership = await findMembership(ctx.db, { tenantId: named, userId: ctx.user.id });
      if (!membership)
        throw new TRPCError({ code: "FORBIDDEN", message: `You are not a member of organisation ${named}.` });
      if (ctx.user.onlyTenantId && ctx.user.onlyTenantId !== named)
        throw new TRPCError({
          code: "FORBIDDEN",
          message: PASSWORD_OF_ANOTHER_ORGANISATION,
          cause: forbidden("password_set_by_another_organisation", PASSWORD_OF_ANOTHER_ORGANISATION),
        });
    } else {
      const memberships = await listMemberships(ctx.db, ctx.user.id, ctx.user.onlyTenantId);
      const chosen = cookieTenantId(ctx.headers);
      membership = memberships.find((m) => m.tenantId === chosen) ?? memberships[0];
      if (!membership)
        throw new TRPCError({
          code: "FORBIDDEN",
          message: "You are not a member of any organisation. Ask an admin to add you.",
        });
    }
    return next({ ctx: { tenant: { id: membership.tenantId, role: membership.role } } });
  })
  .use(async ({ ctx, type, meta, next }) =>
    routeByKind(
      ctx.db,
      meta?.kind ?? (type === "query" ? "read" : "write"),
      ctx.user.id,
      (opts: { ctx: { db: Database; primaryDb: Database } }) => next(opts),
    ),
  );

/**
 * The one place a dashboard procedure's database is chosen: by its kind (a query reads, a mutation
 * writes, unless its meta says otherwise), for the signed-in person (read-your-writes is kept per
 * person). Reads may go to a read replica and are rerun on the primary if the replica fails them;
 * everything else stays on the primary (src/server/db-routing.ts). `ctx.primaryDb` is the primary
 * whatever the kind: permission checks read grants there, so a revoked grant stops working at once.
 */
async function routeByKind<R extends { ok: boolean }>(
  primary: Database,
  kind: WorkKind,
  userId: string,
  next: (opts: { ctx: { db: Database; primaryDb: Database } }) => Promise<R>,
): Promise<R> {
  let last: R | undefined;
  try {
    const routed = await routeWork(primary, { kind, principal: { type: "user", id: userId } }, async (db) => {
      // primaryDb: for what decides access (grants), which must not lag behind a revocation.
      last = await next({ ctx: { db, primaryDb: primary } });
      if (!last.ok) throw (last as unknown as { error: unknown }).error;
      return last;
    });
    return routed.value;
  } catch (error) {
    if (last) return last;
    throw error;
  }
}

export const tenantAdminProcedure = tenantProcedure.use(({ ctx, next }) => {
  if (ctx.tenant.role !== "admin") {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "This needs the admin role in this organisation. Ask an admin.",
    });
  }
  return next({ ctx: { tenant: { ...ctx.tenant, role: "admin" as const } } });
});

/** The bearer secret of an agent call; a dashboard session cookie does not count here. */
function bearerSecret(headers: Headers): string {
  const match = (headers.get("authorization") ?? "").match(/^Bearer\s+(\S+)$/i);
  if (!match?.[1])
    throw new ServiceError(
      "UNAUTHORIZED",
      "missing_api_key",
      'No API key was sent. Send one as "Authorization: Bearer <key>" (create it under Admin → API keys).',
    );
  return match[1];
}

/** Agents: `Authorization: Bearer <api key>` only. */
export const agentProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const { apiKey, limits } = await authenticateAgentKey(ctx.db, bearerSecret(ctx.headers));
  return next({ ctx: { apiKey, keyLimits: limits, tenant: { id: apiKey.tenantId } } });
});

/** Agent tool calls: as agentProcedure, and each call counted against the key's per-minute limit. */
export const meteredAgentProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const { apiKey, limits } = await admitMeteredAgentCall(ctx.db, bearerSecret(ctx.headers));
  return next({ ctx: { apiKey, keyLimits: limits, tenant: { id: apiKey.tenantId } } });
});
