"use client";

import { useMutation } from "@tanstack/react-query";
import { useI18n } from "~/i18n/client";
import { organisationLabel } from "~/i18n/labels";
import { useTRPC } from "~/trpc/react";
import { useAction } from "./admin/use-action";
import { FormError } from "./form";
import { buttonClass, Panel } from "./ui";

export type PendingInvitation = { tenantId: string; tenantName: string; role: "admin" | "member" };

/** Organisations that invited the signed-in person: they join only by accepting here. */
export function InvitationsPanel({ invitations }: { invitations: PendingInvitation[] }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const accept = useMutation(trpc.me.acceptInvitation.mutationOptions());
  const decline = useMutation(trpc.me.declineInvitation.mutationOptions());
  const { run, error, pending } = useAction();
  if (invitations.length === 0) return null;
  return (
    <Panel title={t("invitations.title")} description={t("invitations.hint")} className="mb-6">
      <ul className="space-y-2 text-sm">
        {invitations.map((invitation) => (
          <li key={invitation.tenantId} className="flex flex-wrap items-center gap-3">
            <span className="font-medium">
              {t("invitations.to", {
                organisation: organisationLabel(t, invitation.tenantName),
                role: t(invitation.role === "admin" ? "members.roleAdmin" : "members.roleMember"),
              })}
            </span>
            <button
              type="button"
              disabled={pending}
              onClick={() => void run(() => accept.mutateAsync({ tenantId: invitation.tenantId }))}
              className={buttonClass("primary", "sm")}
            >
              {t("invitations.accept")}
            </button>
            <button
              type="button"
              disabled={pending}
              onClick={() => void run(() => decline.mutateAsync({ tenantId: invitation.tenantId }))}
              className={buttonClass("ghost", "sm")}
            >
              {t("invitations.decline")}
            </button>
          </li>
        ))}
      </ul>
      <FormError message={error} />
    </Panel>
  );
}
