/**
 * What an API key may do. Plain constants with no Drizzle import, so the dashboard's client code
 * can use them too.
 */
export const API_KEY_PERMISSIONS = ["memory:read", "memory:write", "memory:forget", "messages:write"] as const;
export type ApiKeyPermission = (typeof API_KEY_PERMISSIONS)[number];

/**
 * A new key's permissions unless its creator picks others: the agent loop the README shows (store
 * the turn's messages, cite them in writes, read). Forgetting is opted into.
 */
export const DEFAULT_API_KEY_PERMISSIONS: readonly ApiKeyPermission[] = [
  "memory:read",
  "memory:write",
  "messages:write",
];

/**
 * A new key's scopes unless its creator picks others: its owner's profile, the conversations it
 * captures, the workspaces its owner was granted (`workspace:*` reaches only those: every call
 * intersects a key's scopes with its owner's grants), and the organisation-wide cards (`global`, read
 * only: agents never write it). Without `global`, a policy an admin wrote in the dashboard never
 * reached any agent; without `workspace:*`, a workspace grant never reached its owner's agents.
 */
export const defaultApiKeyScopes = (ownerUserId: string): string[] => [
  `user:${ownerUserId}`,
  "session:*",
  "workspace:*",
  "global",
];
