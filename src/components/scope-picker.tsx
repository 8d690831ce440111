"use client";

import { useI18n } from "~/i18n/client";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";
import { hintId, inputClass } from "./ui";

const GROUPS = [
  ["user", "scope.people"],
  ["workspace", "scope.workspaces"],
  ["session", "scope.sessions"],
  ["global", "scope.organisation"],
] as const;

/** One option's text: a person by name and email, a workspace by name, a conversation by id and owner. */
export function scopeOptionText(s: ScopeLabel, t: ReturnType<typeof useI18n>["t"]): string {
  if (s.type === "global") return t("scope.global");
  if (s.type === "user") return s.detail && s.detail !== s.name ? `${s.name} <${s.detail}>` : (s.name ?? s.scope);
  if (s.type === "workspace") return s.name && s.name !== s.id ? `${s.name} (${s.id})` : s.id;
  if (s.type === "session") return s.name ? `${s.id} · ${t("scope.sessionOf", { who: s.name })}` : s.id;
  return s.scope;
}

/**
 * Scopes are chosen, not typed: people, workspaces and conversations from lists the server made
 * (so a made-up id cannot be picked). Option values are the scope ids agents use.
 */
export function ScopePicker({
  id,
  value,
  onChange,
  choices,
  emptyLabel,
  required = false,
}: {
  id: string;
  value: string;
  onChange: (scope: string) => void;
  choices: ScopeLabel[];
  emptyLabel?: string;
  required?: boolean;
}) {
  const { t } = useI18n();
  return (
    <select
      id={id}
      aria-describedby={hintId(id)}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      disabled={!choices.length}
      required={required}
      className={inputClass}
    >
      {emptyLabel !== undefined || !choices.length ? (
        <option value="">{emptyLabel ?? t("scope.noneForKind")}</option>
      ) : null}
      {GROUPS.map(([type, label]) => {
        const group = choices.filter((c) => c.type === type);
        return group.length ? (
          <optgroup key={type} label={t(label)}>
            {group.map((c) => (
              <option key={c.scope} value={c.scope} title={c.scope}>
                {scopeOptionText(c, t)}
              </option>
            ))}
          </optgroup>
        ) : null;
      })}
    </select>
  );
}
