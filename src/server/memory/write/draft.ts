import type { Tenant } from "~/db/schema";
import { canonicalKey, itemKeyFromTitle } from "../kinds/canonical-key";
import { isAgent, type MemoryCallContext } from "../call-context";
import type { KindDefinition } from "../kinds/definition";
import { checkKindScope, validateKindValue } from "../kinds/registry";
import { formatScope, scopeAllowed, type MemoryScope } from "../scope";
import { carriesRedactionMark, findSensitiveInDraft, redactSensitive, redactSensitiveJson } from "../../text/sensitive";
import { EXPLICIT_INTENT_FLAG, type CardFieldsInput } from "./schema";

/** Default confidence and importance (docs/memory-model.md): explicit facts are trusted more and matter more. */
export const DEFAULT_CONFIDENCE = { explicit: 0.98, inferred: 0.7 } as const;
export const DEFAULT_IMPORTANCE = { explicit: 0.9, inferred: 0.6 } as const;

/** A card ready to insert: every rule of the kind, scope, intent, provenance and sensitivity applied. */
export type DraftedCard = {
  def: KindDefinition;
  scope: MemoryScope;
  key: string;
  itemKey: string | null;
  title: string;
  content: string;
  valueJson: unknown;
  tags: string[];
  entities: string[];
  confidence: number;
  importance: number;
  expiresAt: Date | null;
  sourceMessageIds: string[];
  explicit: boolean;
  redacted: boolean;
  notes: string[];
};

export class OperationFailure extends Error {
  constructor(
    readonly status: "rejected" | "conflict",
    readonly reason: string,
    message: string,
    readonly extra: { currentRevision?: number; currentStatus?: string; nodeId?: string; scope?: string } = {},
  ) {
    super(message);
  }
}

const reject = (reason: string, message: string) => new OperationFailure("rejected", reason, message);

export type DraftEnvironment = { tenant: Pick<Tenant, "writePolicy" | "sensitivePolicy">; now: Date };

/**
 * Applies the write rules to one card's fields. `scope` is where the caller wants it; with
 * `allowDowngrade`, facts that may not enter a long-term scope (inferred, or temporary without expiry)
 * go to the current session instead (docs/memory-model.md, write rules), and a note says so.
 */
export function buildDraft(
  env: DraftEnvironment,
  ctx: MemoryCallContext,
  input: {
    def: KindDefinition;
    scope: MemoryScope;
    itemKey: string | null | undefined;
    fields: CardFieldsInput;
    explicit: boolean;
    allowDowngrade: boolean;
  },
): DraftedCard {
  const { def, fields, explicit } = input;
  const notes: string[] = [];
  let scope = input.scope;

  const value = validateKindValue(def, fields.valueJson ?? fields.value);
  if (!value.ok) throw reject(value.reason, value.message);

  const fromTitle = !input.itemKey && def.itemized && !def.itemKeyFromValue && def.itemKeyFromTitle;
  const key = canonicalKey(
    def,
    input.itemKey ??
      (def.itemized
        ? (def.itemKeyFromValue?.(value.value) ?? (fromTitle ? itemKeyFromTitle(fields.title) : undefined))
        : undefined),
  );
  if (!key.ok && fromTitle) {
    throw reject(
      "item_key_required",
      `kind ${def.kind} holds one card per item, and the title "${fields.title.slice(0, 80)}" makes no item (${key.message}). Send itemKey: a short name for this ${def.kind.replace(/_/g, " ")} (e.g. "database", "release_day").`,
    );
  }
  if (!key.ok) {
    // A single slot refused an itemKey: advice on writing a good itemKey would contradict the fix.
    const advice =
      key.reason === "item_key_not_allowed"
        ? ""
        : ' Send a short, stable itemKey naming the concept (e.g. "hermes_studio", "香菜"), not a sentence, timestamp or random id.';
    throw reject(key.reason, `${key.message}.${advice}`);
  }

  if (!explicit && env.tenant.writePolicy === "explicit-only") {
    throw reject(
      "explicit_only_policy",
      `This organisation only stores memory the user explicitly asked for. Set ${EXPLICIT_INTENT_FLAG} only if the user said so; otherwise do not write.`,
    );
  }

  const downgrade = (reason: string, why: string) => {
    if (!input.allowDowngrade || !ctx.defaults.session || !def.allowedScopes.includes("session")) {
      throw reject(
        reason,
        `${why}. Ask the user to confirm (then send ${EXPLICIT_INTENT_FLAG}) or store it for this session with scope "session:<id>".`,
      );
    }
    scope = ctx.defaults.session;
    notes.push(`downgraded_to_session: ${why}`);
  };

  if (!explicit && def.requiresExplicitIntent && scope.type !== "session")
    downgrade("explicit_intent_required", `kind ${def.kind} needs the user's explicit request outside a session`);
  if (!explicit && scope.type === "user")
    downgrade("user_scope_needs_explicit_intent", "user scope holds only what the user explicitly stated");

  const expiresAt = fields.expiresAt ?? null;
  if (expiresAt && expiresAt.getTime() <= env.now.getTime())
    throw reject(
      "expires_in_past",
      `expiresAt ${expiresAt.toISOString()} is already past; send a future time or omit it.`,
    );
  let scopeCheck = checkKindScope(def, scope.type, { hasExpiry: expiresAt !== null });
  if (!scopeCheck.ok && scopeCheck.reason === "expiry_required") {
    downgrade("expiry_required", scopeCheck.message);
    scopeCheck = checkKindScope(def, scope.type, { hasExpiry: expiresAt !== null });
  }
  if (!scopeCheck.ok) throw reject(scopeCheck.reason, scopeCheck.message);

  if (scope.type === "global" && isAgent(ctx))
    throw reject(
      "global_read_only",
      "Agents may not write the global scope; use user, workspace, session or context scope.",
    );
  if (!scopeAllowed(scope, ctx.writeScopes)) {
    throw new OperationFailure(
      "rejected",
      "scope_not_writable",
      `You may not write scope ${formatScope(scope)}. Ask an admin for a write grant, or write a scope you hold.`,
      { scope: formatScope(scope) },
    );
  }

  const sources = [...new Set(fields.sourceMessageIds ?? [])];
  const untrusted = sources.filter((id) => !ctx.trustedMessageIds.includes(id));
  if (untrusted.length) {
    throw reject(
      "untrusted_source",
      `sourceMessageIds ${untrusted.join(", ")} are not evidence captured for this turn. Use only ids returned by message_append for the current turn, or omit them.`,
    );
  }

  let title = fields.title;
  let content = fields.content;
  let valueJson = value.value;
  let tags = fields.tags ?? [];
  let entities = fields.entities ?? [];
  let redacted = false;
  const findings = findSensitiveInDraft({ title, content, itemKey: key.itemKey, valueJson, tags, entities }).filter(
    (f) => f.severity !== "low",
  );
  if (findings.length) {
    const where = [...new Set(findings.map((f) => `${f.type} in ${f.field}`))].join(", ");
    if (env.tenant.sensitivePolicy === "reject" || findings.some((f) => f.field === "itemKey")) {
      throw reject(
        "sensitive_content",
        `The write contains secrets or personal identifiers (${where}). Memory does not store them; leave them out.`,
      );
    }
    title = redactSensitive(title);
    content = redactSensitive(content);
    valueJson = redactSensitiveJson(valueJson);
    tags = tags.map((t) => redactSensitive(t));
    entities = entities.map((e) => redactSensitive(e));
    redacted = true;
    // What pattern redaction cannot reach (a secret-named JSON property) is refused rather than kept.
    if (findSensitiveInDraft({ title, content, valueJson, tags, entities }).some((f) => f.severity !== "low")) {
      throw reject(
        "sensitive_content",
        `The write contains secrets (${where}) that cannot be redacted safely; leave them out.`,
      );
    }
    notes.push(`redacted: ${where}`);
  }
  // Text redacted before (an exported card imported again) stays marked as redacted.
  if (!redacted && carriesRedactionMark([title, content, valueJson, tags, entities])) redacted = true;

  return {
    def,
    scope,
    key: key.key,
    itemKey: key.itemKey,
    title,
    content,
    valueJson,
    tags: [...new Set(tags)],
    entities: [...new Set(entities)],
    confidence: fields.confidence ?? (explicit ? DEFAULT_CONFIDENCE.explicit : DEFAULT_CONFIDENCE.inferred),
    importance: fields.importance ?? (explicit ? DEFAULT_IMPORTANCE.explicit : DEFAULT_IMPORTANCE.inferred),
    expiresAt,
    sourceMessageIds: sources,
    explicit,
    redacted,
    notes,
  };
}
