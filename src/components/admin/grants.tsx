"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { FormError } from "../form";
import type { ScopeLabel } from "~/server/dashboard/scope-labels";
import type { ScopeLabels } from "~/trpc/scope-labels";
import { NameWithId, ScopeName } from "../scope-name";
import { ScopePicker } from "../scope-picker";
import { Badge, buttonClass, cellClass, DataTable, FieldRow, inputClass, Labeled, Panel } from "../ui";
import { useAction } from "./use-action";

type Grant = RouterOutputs["grants"]["list"][number];
type Principal = { type: "user" | "api_key"; id: string; label: string };

/** The column that means "the row's own profile" (`user:<that person>`), so one column serves every member. */
const OWN = "user:(own)";
const concreteScope = (column: string, userId: string) => (column === OWN ? `user:${userId}` : column);

/**
 * Grants as a matrix: people × scopes, a read and a write box per cell (write implies read). A cell
 * with neither box removes the grant. Admins read and write everything regardless, so their rows are
 * informational.
 */
export function GrantsMatrix({
  grants,
  members,
  keys,
  scopes = [],
  labels = {},
  choices = [],
}: {
  grants: Grant[];
  members: { userId: string; email: string; name?: string | null; role: string }[];
  keys: { id: string; name: string; ownerEmail: string | null }[];
  /** More columns: the organisation's workspaces, a scope named in the link that opened the page. */
  scopes?: string[];
  /** Names for the columns' scopes (people by name and email, workspaces by name). */
  labels?: ScopeLabels;
  /** What a new column or a key grant may name: people, workspaces, sessions, the organisation. */
  choices?: ScopeLabel[];
}) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const set = useMutation(trpc.grants.set.mutationOptions());
  const remove = useMutation(trpc.grants.remove.mutationOptions());
  const { run, error, pending } = useAction();
  const [extra, setExtra] = useState<string[]>([]);
  const [newScope, setNewScope] = useState("");
  const picked = Object.fromEntries(choices.map((c) => [c.scope, c]));
  const labelOf = (scope: string) => labels[scope] ?? picked[scope];
  const [saved, setSaved] = useState<string | null>(null);

  const userGrants = grants.filter((g) => g.principalType === "user");
  const own = (g: Grant) => g.scope === `user:${g.principalId}`;
  const columns = [
    OWN,
    "session:*",
    "global",
    ...new Set([...userGrants.filter((g) => !own(g)).map((g) => g.scope), ...scopes, ...extra]),
  ].filter((c, i, all) => all.indexOf(c) === i);
  const find = (principal: Principal, scope: string) =>
    grants.find((g) => g.principalType === principal.type && g.principalId === principal.id && g.scope === scope);

  const toggle = (principal: Principal, scope: string, which: "read" | "write", checked: boolean) => {
    const current = find(principal, scope);
    let canRead = current?.canRead ?? false;
    let canWrite = current?.canWrite ?? false;
    if (which === "read") {
      canRead = checked;
      if (!checked) canWrite = false;
    } else {
      canWrite = checked;
      if (checked) canRead = true;
    }
    const removal = !canRead && !canWrite;
    if (removal && !current) return;
    const change =
      removal && current
        ? () => remove.mutateAsync({ grantId: current.id })
        : () => set.mutateAsync({ principalType: principal.type, principalId: principal.id, scope, canRead, canWrite });
    const access = t(canWrite ? "grants.accessWrite" : canRead ? "grants.accessRead" : "grants.accessNone");
    setSaved(null);
    void run<unknown>(change).then((done) => {
      if (done) setSaved(t("grants.saved", { who: principal.label, scope, access }));
    });
  };

  /** `everything`: an admin's row, all boxes ticked and fixed (admins read and write every scope). */
  const cell = (principal: Principal, scope: string, everything: boolean) => {
    const g = find(principal, scope);
    const disabled = everything;
    return (
      <span className="inline-flex gap-3">
        {(["read", "write"] as const).map((which) => (
          <label key={which} className="inline-flex items-center gap-1 text-xs">
            <input
              type="checkbox"
              disabled={disabled || pending}
              aria-label={t("grants.cellLabel", { who: principal.label, scope, what: t(`grants.${which}`) })}
              checked={everything || (which === "read" ? Boolean(g?.canRead || g?.canWrite) : Boolean(g?.canWrite))}
              onChange={(e) => toggle(principal, scope, which, e.target.checked)}
            />
            {t(`grants.${which}Short`)}
          </label>
        ))}
      </span>
    );
  };

  return (
    <div className="space-y-6">
      <FormError message={error} />
      <p
        role="status"
        aria-live="polite"
        className={
          saved
            ? "rounded-lg bg-emerald-50 px-3 py-2 text-sm text-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-300"
            : "sr-only"
        }
      >
        {saved}
      </p>
      <Panel title={t("grants.people")} description={t("grants.peopleHint")}>
        <form
          className="mb-4 flex gap-2 text-sm"
          onSubmit={(e) => {
            e.preventDefault();
            const scope = newScope.trim();
            if (scope && !columns.includes(scope)) setExtra([...extra, scope]);
            setNewScope("");
          }}
        >
          <label className="sr-only" htmlFor="new-scope">
            {t("grants.addScope")}
          </label>
          <span className="max-w-sm min-w-0 flex-1">
            <ScopePicker
              id="new-scope"
              value={newScope}
              onChange={setNewScope}
              choices={choices.filter((c) => !columns.includes(c.scope))}
              emptyLabel={t("scope.choose")}
            />
          </span>
          <button type="submit" className={buttonClass("secondary")}>
            {t("grants.addScope")}
          </button>
        </form>
        <DataTable
          label={t("grants.matrix")}
          head={[
            t("grants.person"),
            ...columns.map((c) =>
              c === OWN ? (
                t("grants.ownProfile")
              ) : c === "session:*" ? (
                c
              ) : (
                // Names keep their case in the upper-case header row.
                <span key={c} className="tracking-normal normal-case">
                  <ScopeName scope={c} label={labelOf(c)} />
                </span>
              ),
            ),
          ]}
        >
          {members.map((m) => {
            const principal: Principal = { type: "user", id: m.userId, label: m.email };
            const admin = m.role === "admin";
            return (
              <tr key={m.userId}>
                <td className={cellClass}>
                  <NameWithId name={m.name || m.email} detail={m.email} id={m.userId} />{" "}
                  {admin ? <Badge tone="indigo">{t("grants.adminAll")}</Badge> : null}
                </td>
                {columns.map((c) => (
                  <td key={c} className={`${cellClass} whitespace-nowrap`}>
                    {cell(principal, concreteScope(c, m.userId), admin)}
                  </td>
                ))}
              </tr>
            );
          })}
        </DataTable>
      </Panel>
      <KeyGrants
        grants={grants.filter((g) => g.principalType === "api_key")}
        keys={keys}
        onToggle={toggle}
        pending={pending}
        choices={choices}
        labelOf={labelOf}
      />
    </div>
  );
}

/** Extra grants made to API keys (a key is still limited by its owner's grants). */
function KeyGrants({
  grants,
  keys,
  onToggle,
  pending,
  choices,
  labelOf,
}: {
  grants: Grant[];
  keys: { id: string; name: string; ownerEmail: string | null }[];
  onToggle: (p: Principal, scope: string, which: "read" | "write", checked: boolean) => void;
  pending: boolean;
  choices: ScopeLabel[];
  labelOf: (scope: string) => ScopeLabel | undefined;
}) {
  const { t } = useI18n();
  const [form, setForm] = useState({ keyId: keys[0]?.id ?? "", scope: "", write: false });
  return (
    <Panel title={t("grants.keys")} description={t("grants.keysHint")}>
      {grants.length ? (
        <ul className="mb-4 space-y-1 text-sm">
          {grants.map((g) => (
            <li key={g.id} className="flex flex-wrap items-center gap-3">
              <span className="font-medium">{g.principalLabel ?? g.principalId}</span>
              <ScopeName scope={g.scope} label={labelOf(g.scope)} />
              {g.canWrite ? <Badge tone="indigo">{t("grants.write")}</Badge> : <Badge>{t("grants.read")}</Badge>}
              <button
                type="button"
                disabled={pending}
                onClick={() =>
                  onToggle(
                    { type: "api_key", id: g.principalId, label: g.principalLabel ?? g.principalId },
                    g.scope,
                    "read",
                    false,
                  )
                }
                className={buttonClass("ghost", "sm")}
              >
                {t("members.remove")}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mb-4 text-sm text-zinc-500">{t("grants.noKeyGrants")}</p>
      )}
      {keys.length ? (
        <form
          className="flex flex-wrap items-end gap-2 text-sm"
          onSubmit={(e) => {
            e.preventDefault();
            const key = keys.find((k) => k.id === form.keyId);
            if (!key || !form.scope.trim()) return;
            onToggle(
              { type: "api_key", id: key.id, label: key.name },
              form.scope.trim(),
              form.write ? "write" : "read",
              true,
            );
            setForm({ ...form, scope: "" });
          }}
        >
          <FieldRow label={t("grants.key")}>
            <select
              value={form.keyId}
              onChange={(e) => setForm({ ...form, keyId: e.target.value })}
              className={inputClass}
            >
              {keys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.ownerEmail ?? "?"})
                </option>
              ))}
            </select>
          </FieldRow>
          <Labeled id="key-grant-scope" label={t("field.scope")} required>
            <ScopePicker
              id="key-grant-scope"
              value={form.scope}
              onChange={(scope) => setForm({ ...form, scope })}
              choices={choices}
              emptyLabel={t("scope.choose")}
              required
            />
          </Labeled>
          <label className="flex items-center gap-1.5 pb-2">
            <input
              type="checkbox"
              checked={form.write}
              onChange={(e) => setForm({ ...form, write: e.target.checked })}
            />
            {t("grants.write")}
          </label>
          <button type="submit" disabled={pending} className={buttonClass("secondary")}>
            {t("grants.grant")}
          </button>
        </form>
      ) : null}
    </Panel>
  );
}
