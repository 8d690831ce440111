import type { MessageKey } from "~/i18n/translate";

/** Dashboard navigation; admin-only sections are hidden from members. `labelKey` translates `label`. */
export type NavItem = { href: string; label: string; labelKey?: MessageKey; adminOnly?: boolean };
export type NavSection = { title?: string; titleKey?: MessageKey; items: NavItem[] };

export const NAV: NavSection[] = [
  {
    items: [
      { href: "/", label: "Overview", labelKey: "nav.overview" },
      { href: "/memories", label: "Memories", labelKey: "nav.memories" },
      { href: "/sessions", label: "Sessions", labelKey: "nav.sessions" },
      { href: "/topics", label: "Topics", labelKey: "nav.topics" },
      { href: "/audit", label: "Audit log", labelKey: "nav.audit" },
      { href: "/stats", label: "Stats", labelKey: "nav.stats" },
    ],
  },
  {
    title: "Admin",
    titleKey: "nav.admin",
    items: [
      { href: "/admin/members", label: "Members", labelKey: "nav.members", adminOnly: true },
      { href: "/admin/workspaces", label: "Workspaces", labelKey: "nav.workspaces", adminOnly: true },
      { href: "/admin/grants", label: "Scope grants", labelKey: "nav.grants", adminOnly: true },
      { href: "/admin/keys", label: "API keys", labelKey: "nav.keys" },
      { href: "/admin/settings", label: "Settings", labelKey: "nav.settings", adminOnly: true },
    ],
  },
];

/**
 * The sections a person sees. Members get no "Admin" heading above the one admin link they may use
 * (their own API keys): their links form one list.
 */
export function navFor(isAdmin: boolean): NavSection[] {
  if (isAdmin) return NAV;
  return [{ items: NAV.flatMap((section) => section.items.filter((item) => !item.adminOnly)) }];
}
