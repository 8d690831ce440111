"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useI18n } from "~/i18n/client";
import { useTRPC } from "~/trpc/react";
import type { RouterOutputs } from "~/trpc/types";
import { ConfirmDialog } from "../dialog";
import { FormError } from "../form";
import { LocalTime } from "../local-time";
import { Badge, buttonClass, cellClass, DataTable, FieldRow, inputClass, Panel } from "../ui";
import { EraseMemoryButton } from "./erase-memory";
import { useAction } from "./use-action";

type Member = RouterOutputs["admin"]["members"]["list"][number];

/** Add a person by email with a role (and an initial password when they are new here). */
export function AddMemberForm() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const add = useMutation(trpc.admin.members.add.mutationOptions());
  const { run, error, pending } = useAction();
  const [form, setForm] = useState({ email: "", name: "", role: "member" as "member" | "admin", password: "" });
  const [added, setAdded] = useState<{ email: string; invited: boolean } | null>(null);
  return (
    <Panel title={t("members.add")} description={t("members.addHint")}>
      <form
        className="grid gap-3 text-sm md:grid-cols-5"
        onSubmit={async (e) => {
          e.preventDefault();
          const result = await run(() =>
            add.mutateAsync({
              email: form.email,
              role: form.role,
              ...(form.name.trim() ? { name: form.name.trim() } : {}),
              ...(form.password ? { password: form.password } : {}),
            }),
          );
          if (result) {
            setAdded({ email: result.email, invited: result.invited });
            setForm({ email: "", name: "", role: "member", password: "" });
          }
        }}
      >
        <FieldRow label={t("members.email")} required className="md:col-span-2">
          <input
            type="email"
            required
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
            className={inputClass}
          />
        </FieldRow>
        <FieldRow label={t("members.name")}>
          <input
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            className={inputClass}
          />
        </FieldRow>
        <FieldRow label={t("members.role")}>
          <select
            value={form.role}
            onChange={(e) => setForm({ ...form, role: e.target.value as "member" | "admin" })}
            className={inputClass}
          >
            <option value="member">{t("members.roleMember")}</option>
            <option value="admin">{t("members.roleAdmin")}</option>
          </select>
        </FieldRow>
        <FieldRow label={t("members.password")}>
          <input
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
            className={inputClass}
          />
        </FieldRow>
        <div className="flex items-center gap-3 md:col-span-5">
          <button type="submit" disabled={pending} className={buttonClass("primary")}>
            {pending ? t("common.working") : t("members.addButton")}
          </button>
          {added ? (
            <span role="status" className="text-emerald-700">
              {t(added.invited ? "members.invited" : "members.added", { email: added.email })}
            </span>
          ) : null}
        </div>
        <div className="md:col-span-5">
          <FormError message={error} />
        </div>
      </form>
    </Panel>
  );
}

/** The organisation's people with role changes and removal; the server refuses to drop the last admin. */
export function MembersTable({ members, selfId }: { members: Member[]; selfId: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const setRole = useMutation(trpc.admin.members.setRole.mutationOptions());
  const remove = useMutation(trpc.admin.members.remove.mutationOptions());
  const signOut = useMutation(trpc.admin.members.signOutEverywhere.mutationOptions());
  const { run, error, pending } = useAction();
  const [removing, setRemoving] = useState<Member | null>(null);
  return (
    <>
      <FormError message={error} />
      <DataTable
        label={t("members.title")}
        head={[t("members.person"), t("members.role"), t("members.joined"), t("members.keys"), ""]}
      >
        {members.map((m) => (
          <tr key={m.userId}>
            <td className={cellClass}>
              {/* The name they signed up with first; the email identifies them. */}
              <span className="font-medium">{m.name ?? m.email}</span>
              {m.name ? <span className="ml-2 text-xs text-zinc-500">{m.email}</span> : null}
              {m.userId === selfId ? <Badge tone="sky">{t("members.you")}</Badge> : null}
              {m.disabled ? <Badge tone="red">{t("members.disabled")}</Badge> : null}
            </td>
            <td className={cellClass}>
              <select
                aria-label={t("members.roleOf", { email: m.email })}
                value={m.role}
                disabled={pending}
                onChange={(e) =>
                  void run(() => setRole.mutateAsync({ userId: m.userId, role: e.target.value as "admin" | "member" }))
                }
                className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-950"
              >
                <option value="member">{t("members.roleMember")}</option>
                <option value="admin">{t("members.roleAdmin")}</option>
              </select>
            </td>
            <td className={`${cellClass} text-xs text-zinc-500`}>
              <LocalTime value={m.joinedAt} />
            </td>
            <td className={`${cellClass} tabular-nums`}>{m.activeKeys}</td>
            <td className={`${cellClass} text-right`}>
              <span className="inline-flex items-center gap-2">
                <EraseMemoryButton scope={`user:${m.userId}`} confirm={m.email} conversations />
                <button
                  type="button"
                  disabled={pending}
                  title={t("members.signOutHint")}
                  onClick={() => void run(() => signOut.mutateAsync({ userId: m.userId }))}
                  className={buttonClass("ghost", "sm")}
                >
                  {t("members.signOut")}
                </button>
                <button type="button" onClick={() => setRemoving(m)} className={buttonClass("ghost", "sm")}>
                  {t("members.remove")}
                </button>
              </span>
            </td>
          </tr>
        ))}
      </DataTable>
      <ConfirmDialog
        target={removing}
        onClose={() => setRemoving(null)}
        title={t("members.removeTitle")}
        message={(member) => t("members.removeHint", { email: member.email, keys: member.activeKeys })}
        cancelLabel={t("common.cancel")}
        confirmLabel={t("members.remove")}
        pending={pending}
        onConfirm={(member) => run(() => remove.mutateAsync({ userId: member.userId }))}
      />
    </>
  );
}
