"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { signOut } from "next-auth/react";
import { setPreferenceCookie, useOptionalI18n } from "~/i18n/client";
import { organisationLabel } from "~/i18n/labels";
import { TENANT_COOKIE } from "~/server/auth/tenant-cookie";
import { LogoMark } from "./auth-card";
import { LanguageSwitch } from "./language-switch";
import { navFor } from "./nav";

function isActive(pathname: string, href: string) {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

type Membership = { tenantId: string; tenantName: string };

/** Picks the organisation the dashboard shows (a person may belong to several); the server checks membership. */
function OrganisationSwitcher({
  memberships,
  tenantId,
  label,
}: {
  memberships: (Membership & { tenantLabel: string })[];
  tenantId: string;
  label: string;
}) {
  return (
    <label className="flex flex-col gap-1 text-xs text-zinc-500">
      {label}
      <select
        value={tenantId}
        onChange={(event) => {
          setPreferenceCookie(TENANT_COOKIE, event.target.value);
          // A full load of the home page: ids on this page (a card, a session) and the client's query
          // cache belong to the organisation being left.
          window.location.assign(window.location.origin);
        }}
        className="rounded-md border border-zinc-300 bg-white px-1.5 py-1 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
      >
        {memberships.map((m) => (
          <option key={m.tenantId} value={m.tenantId}>
            {m.tenantLabel}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The dashboard's navigation and account controls. From md up a sidebar; on phones a top bar whose
 * menu button opens all of it (every page, the organisation, sign-out and the language switch).
 */
export function Sidebar({
  isAdmin,
  email,
  name,
  tenantId,
  memberships,
}: {
  isAdmin: boolean;
  email: string;
  name: string | null;
  tenantId: string;
  memberships: Membership[];
}) {
  const pathname = usePathname();
  const i18n = useOptionalI18n();
  const t = (key: Parameters<NonNullable<typeof i18n>["t"]>[0] | undefined, fallback: string) =>
    i18n && key ? i18n.t(key) : fallback;
  const labelled = memberships.map((m) => ({
    ...m,
    tenantLabel: i18n ? organisationLabel(i18n.t, m.tenantName) : m.tenantName,
  }));
  const tenantName = labelled.find((m) => m.tenantId === tenantId)?.tenantLabel ?? "";
  // The phone menu closes on navigation: it remembers the page it was opened on.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === pathname;
  return (
    <aside className="sticky top-0 z-20 flex shrink-0 flex-col border-b border-zinc-200 bg-white md:h-screen md:w-60 md:border-r md:border-b-0 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex items-center justify-between gap-2 px-4 py-3 md:py-4">
        <Link href="/" className="flex items-center gap-2 font-semibold">
          <LogoMark />
          {t("app.name", "Memory")}
        </Link>
        <span className="min-w-0 flex-1 truncate text-right text-xs text-zinc-500 md:hidden">{tenantName}</span>
        <button
          type="button"
          aria-expanded={menuOpen}
          aria-controls="dashboard-menu"
          onClick={() => setOpenOn(menuOpen ? null : pathname)}
          className="rounded-lg border border-zinc-300 px-3 py-1.5 text-sm font-medium md:hidden dark:border-zinc-700"
        >
          {menuOpen ? t("nav.closeMenu", "Close menu") : t("nav.menu", "Menu")}
        </button>
      </div>
      <div
        id="dashboard-menu"
        className={`${menuOpen ? "flex" : "hidden"} max-h-[calc(100dvh-3.5rem)] flex-col overflow-y-auto md:flex md:max-h-none md:flex-1 md:overflow-visible`}
      >
        <nav aria-label={t("nav.main", "Main")} className="flex flex-col gap-1 px-2 pb-2 md:flex-1">
          {navFor(isAdmin).map((section, i) => {
            const { items } = section;
            return (
              <div key={section.title ?? i} className="mb-2 flex flex-col gap-1 md:mb-4">
                {section.title ? (
                  <p className="px-3 pt-2 pb-1 text-xs font-semibold tracking-wide text-zinc-400 uppercase">
                    {t(section.titleKey, section.title)}
                  </p>
                ) : null}
                {items.map((item) => (
                  <Link
                    key={item.href}
                    href={item.href}
                    aria-current={isActive(pathname, item.href) ? "page" : undefined}
                    className="rounded-lg px-3 py-2 text-sm whitespace-nowrap text-zinc-600 hover:bg-zinc-100 aria-[current=page]:bg-indigo-50 aria-[current=page]:font-medium aria-[current=page]:text-indigo-700 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:aria-[current=page]:bg-indigo-950 dark:aria-[current=page]:text-indigo-300"
                  >
                    {t(item.labelKey, item.label)}
                  </Link>
                ))}
              </div>
            );
          })}
        </nav>
        <div className="border-t border-zinc-200 p-4 dark:border-zinc-800">
          {memberships.length > 1 ? (
            <OrganisationSwitcher
              memberships={labelled}
              tenantId={tenantId}
              label={t("nav.organisation", "Organisation")}
            />
          ) : (
            <p className="truncate text-xs font-medium text-zinc-500">{tenantName}</p>
          )}
          {name ? <p className="mt-1 truncate text-sm font-medium">{name}</p> : null}
          <p className={name ? "truncate text-xs text-zinc-500" : "mt-1 truncate text-sm"} title={email}>
            {email}
          </p>
          <button
            type="button"
            onClick={() => void signOut({ callbackUrl: "/sign-in" })}
            className="mt-2 text-sm text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100"
          >
            {t("nav.signOut", "Sign out")}
          </button>
          {i18n ? <LanguageSwitch className="mt-3" /> : null}
        </div>
      </div>
    </aside>
  );
}
