/** Dashboard navigation; admin-only sections are hidden from members. */
export type NavItem = { href: string; label: string; adminOnly?: boolean };
export type NavSection = { title?: string; items: NavItem[] };

export const NAV: NavSection[] = [
  {
    items: [
      { href: "/", label: "Overview" },
      { href: "/memories", label: "Memories" },
      { href: "/sessions", label: "Sessions" },
      { href: "/topics", label: "Topics" },
      { href: "/audit", label: "Audit log" },
      { href: "/stats", label: "Stats" },
    ],
  },
  {
    title: "Admin",
    items: [
      { href: "/admin/members", label: "Members", adminOnly: true },
      { href: "/admin/grants", label: "Scope grants", adminOnly: true },
      { href: "/admin/keys", label: "API keys" },
      { href: "/admin/settings", label: "Settings", adminOnly: true },
    ],
  },
];
