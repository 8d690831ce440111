import { EXPLICIT_INTENT_FLAG, type KindDefinition } from "~/server/memory";

/**
 * What each tool tells the model: the descriptions teach correct use. Kept next to each other
 * so the rules read as one contract: kinds before queryText, `all` for listing, get before change,
 * evidence only from the host, explicit intent only when the user asked, never claim a failed change.
 */

export const SEARCH_DESCRIPTION = [
  "Search long-term memory (the scopes this key may read). Returns exact (structured matches), relevant (text matches) and omitted (with reasons).",
  '- Known category → send kinds (e.g. ["profile_name"] for the user\'s name, ["avoid_ingredient"] for foods to avoid). Use queryText only for open questions.',
  '- The user asks to list or show all memories ("show all my memories", "列出所有记忆") → send all: true, never that sentence as queryText. It comes a page (limit, up to 50) at a time: while the answer has nextCursor, send all: true with cursor: nextCursor for the next page.',
  "- An empty result means nothing matched, not that memory is empty: only an all: true enumeration (enumerated: true) can show that.",
  "- Each card has id and revision: to change or delete it, pass them as targetId/expectedRevision (memory_write) or id/expectedRevision (memory_forget).",
  '- With turn.sessionId, session cards come from that session only; to search other conversations name them in scopes (e.g. ["session:*"]).',
].join("\n");

export const GET_DESCRIPTION = [
  "Read one memory card in full: canonical key, valueJson, status and current revision.",
  "- Call it before changing a card: memory_write update/supersede/expire and memory_forget by id need this card's id and its current revision as expectedRevision.",
  "- Without id, send kind (+ itemKey) or key for a limit-2 exact lookup; if two cards match you get both as candidates — choose one by id.",
  "- not_found means no card with that id in scopes you can read.",
].join("\n");

export const FORGET_DESCRIPTION = [
  "Delete memory, only because the user explicitly asked in this turn to forget, delete or clear it (the host marks the turn; otherwise the call is refused). Send exactly one form:",
  "- id + expectedRevision (from memory_get/memory_search) for one card; targets [{id, expectedRevision}] for several.",
  "- selector {kind, key, itemKey, domain, valueJson, categoryPathPrefix, scope}: if several cards match, nothing is deleted and you get candidates — confirm with the user, then forget them by targets.",
  "- all: true only when the user asked to clear ALL memory (the host must mark a forget-all turn).",
  "selector and all reach the user's scopes and this turn's session (turn.sessionId), not other conversations; name a scope to reach another one you may write.",
  "mode: soft (default: status deleted, history kept) or hard (erased permanently; eraseEvidence also removes the source messages). reason: the user's request, briefly.",
  "Result: done: true → it is forgotten. done: false → nothing was deleted (see reason, conflicts, candidates); tell the user so, never claim it was forgotten.",
].join("\n");

export const CONTEXT_DESCRIPTION = [
  "The memory block for this turn (automatic recall): recent messages, latest summary, always-recalled cards (interaction contract, language, accessibility, communication, hard constraints), the user's profile (name, home, occupation, people), active tasks, constraints, preferences, decisions and workspace facts, and cards relevant to queryText, under a token budget.",
  "- Call it once at the start of a turn with the user's message as queryText and put `prompt` into your context.",
  "- It is a budgeted selection, not all of memory: use memory_search for anything else, and never conclude from it that memory is empty.",
].join("\n");

export const APPEND_DESCRIPTION = [
  "Host step: store this turn's messages as trusted evidence in a session (sessionId, or turn.sessionId). Append-only and idempotent: resending the same messages returns the same ids.",
  "- Returns messageIds. Cite them in memory_write node.sourceMessageIds, with turn.sessionId set to the same session — only the session's recent messages count as evidence.",
].join("\n");

const scopeNote = (def: KindDefinition) => {
  const parts: string[] = [def.defaultScope];
  if (def.requiresExplicitIntent) parts.push("explicit");
  if (def.temporary) parts.push("needs expiresAt outside session");
  return parts.join(", ");
};

/** One line per kind: `kind [itemKey] (default scope, explicit): value shape`. */
export function kindsTable(kinds: readonly KindDefinition[]): string {
  return kinds
    .map((def) => `${def.kind}${def.itemized ? " [itemKey]" : ""} (${scopeNote(def)}): ${def.valueHint}`)
    .join("\n");
}

export function writeDescription(kinds: readonly KindDefinition[]): string {
  return [
    "Save or change durable memory. Send operations: a batch validated whole and committed in one transaction (all or nothing).",
    '- create: kind from the table below, node {title, content, valueJson}. Itemized kinds need itemKey: a short stable name ("hermes_studio", "香菜"), never a sentence, timestamp or random value. The server makes the canonical key: same slot + same content → noop (do not repeat it); same slot + new content → a new revision replacing the old (the result\'s replaced names that card\'s id and title: tell the user). Kinds without [itemKey] hold one card per scope.',
    "- update / supersede / expire: targetId + expectedRevision from memory_get or memory_search. A conflict carries currentRevision: re-read with memory_get and retry; never overwrite blindly. Send only the fields to change in node, not the card as read (id, key, revision… are refused); a new valueJson comes with the content that states it (recall shows the content).",
    "- node.sourceMessageIds: only ids message_append returned for this session's recent messages (turn.sessionId); never invent or reuse others.",
    `- ${EXPLICIT_INTENT_FLAG} only when the user explicitly asked to remember, change or correct this. Inferred facts stay in the session scope or are rejected.`,
    "- No secrets (passwords, keys, card numbers): they are refused.",
    "Result: done: true → saved (each result says created / updated / superseded / expired / noop). done: false → NOTHING was written: fix what results[].reason names and resend, or tell the user it failed — never say it was saved.",
    "Kinds — kind [itemKey] (default scope, explicit = needs explicitUserIntent outside a session): valueJson:",
    kindsTable(kinds),
  ].join("\n");
}

/** Per-field notes added to the generated JSON Schemas (by property name, wherever it appears). */
export const FIELD_NOTES: Record<string, Record<string, string>> = {
  memory_search: {
    all: 'true to list every active memory you can read ("show all my memories"); no relevance filter.',
    queryText:
      "An open question in the user's words. Not for listing everything (use all) and not when a kind fits (use kinds).",
    kinds: "Controlled kinds to match exactly (see memory_write's table).",
    scopes: 'Only these scopes (each must be readable), e.g. ["user:u1", "session:s1"].',
    limit: "Maximum cards (default 10).",
  },
  memory_get: {
    id: "The card id from memory_search.",
    kind: "A controlled kind, for a lookup without id.",
    itemKey: "The item of an itemized kind.",
    key: "A canonical key such as profile.identity.name.",
    scope: "Look only in this scope.",
  },
  memory_write: {
    operations: "The batch: all applied or none.",
    op: "create | update | supersede | expire",
    kind: "A kind from the table in the description.",
    itemKey: "Itemized kinds only: short stable name of the item.",
    scope:
      "Where to store (user:<id>, workspace:<id>, session:<id>, context:<ns>/<id>); default: the kind's default scope for this turn.",
    targetId: "Id of the card to change (from memory_get / memory_search).",
    expectedRevision: "The card's revision as you read it; a mismatch is a conflict, not an overwrite.",
    explicitUserIntent: "true only if the user explicitly asked to remember / change this.",
    sourceMessageIds: "Ids returned by message_append for this session; nothing else.",
    valueJson: "The structured value in the kind's shape.",
    reason: "Why (short).",
  },
  memory_forget: {
    id: "One card to forget (needs expectedRevision).",
    expectedRevision: "The card's current revision (from memory_get).",
    targets: "Several cards, each {id, expectedRevision}.",
    selector: "Match by fields; several matches delete nothing and return candidates.",
    all: "Everything you can write; only when the user asked to clear all memory.",
    mode: "soft (default) keeps history; hard erases permanently.",
    reason: "The user's request, briefly.",
  },
  memory_context: {
    queryText: "The user's message this turn.",
    sessionId: "The conversation; default turn.sessionId.",
    tokenBudget: "Tokens the block may use (default 4000).",
  },
  message_append: {
    sessionId: "The conversation these messages belong to; default turn.sessionId.",
    messages: "This turn's messages in order.",
    clientMessageId: "Your own id for the message (makes retries idempotent).",
  },
};
