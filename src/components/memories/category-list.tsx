import Link from "next/link";
import { categoryLabel } from "~/i18n/labels";
import type { Translate } from "~/i18n/translate";
import type { CategoryTreeNode, DomainTree } from "~/server/dashboard/cards";

const href = (domain: string, category?: string) =>
  `/memories?domain=${encodeURIComponent(domain)}${category ? `&category=${encodeURIComponent(category)}` : ""}`;

/** The domain → category tree with counts, every node a link into the memory browser; names in the viewer's language. */
export function CategoryList({ tree, label, t }: { tree: DomainTree[]; label: string; t: Translate }) {
  const branch = (nodes: CategoryTreeNode[], domain: string) => (
    <ul className="ml-4 space-y-1 border-l border-zinc-200 pl-3 dark:border-zinc-800">
      {nodes.map((n) => (
        <li key={n.path}>
          <Link href={href(domain, n.path)} className="inline-flex gap-2 hover:underline">
            <span>{categoryLabel(t, n.name)}</span>
            <span className="tabular-nums text-zinc-500">{n.count}</span>
          </Link>
          {n.children.length ? branch(n.children, domain) : null}
        </li>
      ))}
    </ul>
  );
  return (
    <ul aria-label={label} className="space-y-3 text-sm">
      {tree.map((d) => (
        <li key={d.domain}>
          <Link href={href(d.domain)} className="inline-flex gap-2 font-semibold hover:underline">
            <span>{categoryLabel(t, d.domain)}</span>
            <span className="tabular-nums text-zinc-500">{d.count}</span>
          </Link>
          {d.categories.length ? branch(d.categories, d.domain) : null}
        </li>
      ))}
    </ul>
  );
}
