import type { MemoryCallContext } from "../call-context";
import type { KindRegistry } from "../kinds/custom";
import { kindNames, unknownKindText } from "../kinds/unknown";
import { formatScope, parseScope, type MemoryScope } from "../scope";
import { buildDraft, OperationFailure, type DraftEnvironment, type DraftedCard } from "./draft";
import type { WriteOperation } from "./schema";

export type WriteEnvironment = DraftEnvironment & { registry: KindRegistry };
type Env = WriteEnvironment;
/** An operation of a batch, with its card drafted when it is a create. */
export type Prepared = { op: WriteOperation; draft?: DraftedCard };

export function resolveKindOrFail(env: Env, kind: string) {
  const def = env.registry.resolve(kind);
  if (!def) {
    throw new OperationFailure(
      "rejected",
      "unknown_kind",
      `${unknownKindText(env.registry, kind)}. Use one of: ${kindNames(env.registry)} (custom_fact with an itemKey for anything else).`,
    );
  }
  return def;
}

function requestedScope(
  ctx: MemoryCallContext,
  scopeText: string | undefined,
  defaultScope: MemoryScope["type"],
): MemoryScope {
  if (scopeText) return parseScope(scopeText);
  if (defaultScope === "global") return { type: "global", id: "" };
  const scope = ctx.defaults[defaultScope as keyof MemoryCallContext["defaults"]];
  if (!scope) {
    // The turn named one the caller may not use: "send scope workspace:w1" would only be refused next.
    const named = ctx.unreadableDefaults?.find((s) => s.type === defaultScope);
    if (named) {
      throw new OperationFailure(
        "rejected",
        "scope_not_writable",
        `This turn's ${defaultScope} ${formatScope(named)} is outside your grants, so the card has nowhere to go. Ask an admin for a grant on ${formatScope(named)}, or send a scope you hold.`,
        { scope: formatScope(named) },
      );
    }
    throw new OperationFailure(
      "rejected",
      "scope_required",
      `No default ${defaultScope} scope for this call; send scope, e.g. "${defaultScope}:<id>".`,
    );
  }
  return scope;
}

/** Static checks needing no card: every create is fully drafted here so all problems are reported at once. */
export function prepare(env: Env, ctx: MemoryCallContext, op: WriteOperation): Prepared {
  if (op.op !== "create") return { op };
  return { op, draft: draftCreate(env, ctx, op) };
}

/** A create's card with every rule applied (write/preview.ts shows it before a person saves). */
export function draftCreate(
  env: Env,
  ctx: MemoryCallContext,
  op: Extract<WriteOperation, { op: "create" }>,
): DraftedCard {
  const def = resolveKindOrFail(env, op.kind);
  let scope: MemoryScope;
  try {
    scope = requestedScope(ctx, op.scope, def.defaultScope);
  } catch (error) {
    if (error instanceof OperationFailure) throw error;
    throw new OperationFailure("rejected", "invalid_scope", error instanceof Error ? error.message : String(error));
  }
  return buildDraft(env, ctx, {
    def,
    scope,
    itemKey: op.itemKey,
    fields: op.node,
    explicit: op.explicitUserIntent === true,
    allowDowngrade: true,
  });
}
