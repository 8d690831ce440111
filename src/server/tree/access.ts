import type { MemoryCallContext } from "~/server/memory";

/**
 * Which sessions' chunks a caller may read: all of them with `session:*`, otherwise the sessions
 * granted one by one (chunks are evidence of sessions).
 */
export function readableSessions(ctx: Pick<MemoryCallContext, "readScopes">): readonly string[] | undefined {
  const sessions = ctx.readScopes.filter((p) => p.type === "session");
  if (sessions.some((p) => p.id === "*")) return undefined;
  return sessions.map((p) => p.id);
}
