import "server-only";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";
import { attempt, serverApi } from "./server";

export type ScopeLabels = Record<string, ScopeLabel>;

/**
 * Names for the scopes a page shows (people, workspaces, session owners), by scope id. Labels are a
 * help, not the page: if they cannot be loaded the page shows the ids.
 */
export async function scopeLabelsFor(scopes: readonly (string | null | undefined)[]): Promise<ScopeLabels> {
  const wanted = [...new Set(scopes.filter((s): s is string => Boolean(s)))].slice(0, 500);
  if (!wanted.length) return {};
  const api = await serverApi();
  const labels = await attempt(() => api.memory.scopeLabels({ scopes: wanted }));
  return labels.ok ? Object.fromEntries(labels.data.map((l) => [l.scope, l])) : {};
}
