"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { LOCALES, type Locale } from "~/i18n/config";
import { setPreferenceCookie, switchLocale, useOptionalI18n } from "~/i18n/client";
import { TENANT_COOKIE } from "~/server/auth/tenant-cookie";
import { LogoMark } from "./auth-card";
import { navFor } from "./nav";

const LOCALE_NAMES: Record<Locale, string> = { en: "English", zh: "中文" };

function isActive(pathname: string, href: string) {
  return href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`);
}

type Membership = { tenantId: string; tenantName: string };

/** Picks the organisation the dashboard shows (a person may belong to several); the server checks membership. */
function OrganisationSwitcher({ memberships, tenantId, label }: { memberships: Membership[]; tenantId: string; label: string }) {
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
            {m.tenantName}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Sidebar({ isAdmin, email, name, tenantId, memberships }: { isAdmin: boolean; email: string; name: string | null; tenantId: string; memberships: Membership[] }) {
  const tenantName = memberships.find((m) => m.tenantId === tenantId)?.tenantName ?? "";
  const pathname = usePathname();
  const i18n = useOptionalI18n();
  const t = (key: Parameters<NonNullable<typeof i18n>["t"]>[0] | undefined, fallback: string) => (i18n && key ? i18n.t(key) : fallback);
  return (
    <aside className="flex shrink-0 flex-col border-zinc-200 bg-white md:sticky md:top-0 md:h-screen md:w-60 md:border-r dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex items-center justify-between gap-2 px-4 py-4">
        <Link href="/" className="flex items-center gap-2 font-semibold">
          <LogoMark />
          Memory
        </Link>
        <span className="truncate text-xs text-zinc-500 md:hidden">{tenantName}</span>
      </div>
      <nav aria-label="Main" className="flex gap-1 overflow-x-auto px-2 pb-2 md:flex-1 md:flex-col md:overflow-visible">
        {navFor(isAdmin).map((section, i) => {
          const { items } = section;
          return (
            <div key={section.title ?? i} className="flex gap-1 md:mb-4 md:flex-col">
              {section.title ? <p className="hidden px-3 pt-2 pb-1 text-xs font-semibold tracking-wide text-zinc-400 uppercase md:block">{t(section.titleKey, section.title)}</p> : null}
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
      <div className="hidden border-t border-zinc-200 p-4 md:block dark:border-zinc-800">
        {memberships.length > 1 ? (
          <OrganisationSwitcher memberships={memberships} tenantId={tenantId} label={t("nav.organisation", "Organisation")} />
        ) : (
          <p className="truncate text-xs font-medium text-zinc-500">{tenantName}</p>
        )}
        {name ? <p className="mt-1 truncate text-sm font-medium">{name}</p> : null}
        <p className={name ? "truncate text-xs text-zinc-500" : "mt-1 truncate text-sm"} title={email}>
          {email}
        </p>
        <button type="button" onClick={() => void signOut({ callbackUrl: "/sign-in" })} className="mt-2 text-sm text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100">
          {t("nav.signOut", "Sign out")}
        </button>
        {i18n ? (
          <label className="mt-3 flex items-center gap-2 text-xs text-zinc-500">
            {i18n.t("nav.language")}
            <select
              value={i18n.locale}
              onChange={(event) => switchLocale(event.target.value as Locale)}
              className="rounded-md border border-zinc-300 bg-white px-1.5 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-950"
            >
              {LOCALES.map((l) => (
                <option key={l} value={l}>
                  {LOCALE_NAMES[l]}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
    </aside>
  );
}
