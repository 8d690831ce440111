import type { ActorType } from "~/db/schema";
import type { MemoryScope, ScopePattern } from "./scope";

export type Actor = { type: ActorType; id: string | null };

/**
 * Everything a memory operation needs to know about who asks and what they may touch. Built by the
 * tool endpoint (API key), the dashboard (signed-in user), the CLI or a worker (system) — the core
 * never looks at HTTP, sessions or keys itself.
 */
export type MemoryCallContext = {
  tenantId: string;
  actor: Actor;
  /** Scopes this principal may read (already the intersection of key and owner grants). */
  readScopes: ScopePattern[];
  /** Scopes this principal may write. `global` is never writable by agents. */
  writeScopes: ScopePattern[];
  /** Default scopes for this turn: where `user`/`session`/`workspace` default-scope kinds land. */
  defaults: { user?: MemoryScope; session?: MemoryScope; workspace?: MemoryScope };
  /** Turn scopes the caller named but may not read (left out of `defaults`), to say so when one is needed. */
  unreadableDefaults?: MemoryScope[];
  /** Message ids captured as evidence for the current turn: the only acceptable sourceMessageIds. */
  trustedMessageIds: readonly string[];
  /** The user asked to forget something in this turn (docs/memory-model.md, Forget). */
  forgetIntent?: boolean;
  /** The user asked to forget everything (needed for `all`). */
  forgetAllIntent?: boolean;
  toolCallId?: string | null;
};

export const isAgent = (ctx: Pick<MemoryCallContext, "actor">) => ctx.actor.type === "api_key";

/** The moment a call acts at: the system clock unless the caller fixes it (tests, to order events without sleeping). */
export type CallTime = { now?: Date };
