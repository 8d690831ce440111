"use client";

import { useState } from "react";
import { useI18n } from "~/i18n/client";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";

/** A copy button for an id people need to paste elsewhere (an agent's config, a support ticket). */
export function CopyId({ value }: { value: string }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      title={t("scope.copyId", { id: value })}
      aria-label={t("scope.copyId", { id: value })}
      onClick={() =>
        void navigator.clipboard
          ?.writeText(value)
          .then(() => setCopied(true))
          .catch(() => undefined)
      }
      className="ml-1 inline-flex shrink-0 items-center rounded p-1 align-middle text-[11px] text-zinc-400 hover:bg-zinc-100 hover:text-zinc-700 dark:hover:bg-zinc-800 dark:hover:text-zinc-200"
    >
      {copied ? (
        t("scope.copied")
      ) : (
        // An icon drawn here: a copy glyph from a font was missing on some systems (a box instead).
        <svg
          aria-hidden="true"
          viewBox="0 0 16 16"
          width="12"
          height="12"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.5"
        >
          <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
          <path d="M10.5 3.5v-0.5a1.5 1.5 0 0 0-1.5-1.5h-5a1.5 1.5 0 0 0-1.5 1.5v5a1.5 1.5 0 0 0 1.5 1.5h0.5" />
        </svg>
      )}
    </button>
  );
}

/**
 * A person, key or other named thing: its name first, a second line (an email) when there is one,
 * and the id it stands for on hover and behind a copy button.
 */
export function NameWithId({
  name,
  detail,
  id,
  mono = false,
}: {
  name: string;
  detail?: string | null;
  id: string | null;
  mono?: boolean;
}) {
  return (
    <span className="inline-flex min-w-0 max-w-full items-start" data-id={id ?? undefined}>
      <span title={id ?? undefined} className="min-w-0">
        <span className={`block font-medium wrap-anywhere ${mono ? "font-mono text-xs" : ""}`}>{name}</span>
        {detail && detail !== name ? <span className="block text-xs text-zinc-500 wrap-anywhere">{detail}</span> : null}
      </span>
      {id ? <CopyId value={id} /> : null}
    </span>
  );
}

/**
 * A scope as people read it: `user:<id>` is the member's name and email, `workspace:<id>` its name,
 * `session:<id>` the conversation and whose it is, `global` the whole organisation. The scope id
 * stays on hover and behind the copy button (agents and the API still speak ids).
 */
export function ScopeName({ scope, label }: { scope: string; label?: ScopeLabel | null }) {
  const { t } = useI18n();
  const type = label?.type ?? (scope === "global" ? "global" : (scope.split(":")[0] ?? ""));
  const id = label?.id ?? scope.slice(scope.indexOf(":") + 1);
  if (type === "global") return <NameWithId name={t("scope.global")} id={scope} />;
  if (type === "user" && label?.known && label.name)
    return <NameWithId name={label.name} detail={label.detail} id={scope} />;
  if (type === "workspace" && label?.known && label.name)
    return <NameWithId name={label.name} detail={t("scope.workspace")} id={scope} />;
  if (type === "session") {
    const owner = label?.name ? t("scope.sessionOf", { who: label.name }) : t("scope.session");
    return <NameWithId name={id} detail={owner} id={scope} mono />;
  }
  const note = type === "user" ? t("scope.unknownPerson") : type === "workspace" ? t("scope.unknownWorkspace") : null;
  return <NameWithId name={scope} detail={note} id={scope} mono />;
}
