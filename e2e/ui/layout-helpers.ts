import { expect as baseExpect, type Page } from "@playwright/test";
import { createKey } from "./helpers";

/**
 * Shared by the phone, Chinese and screenshot specs: the dashboard's pages, a seeded card and
 * session to show, the sideways-scroll check and the language switch.
 */

/** Pages render slowly on a busy CI machine: the specs using these helpers wait up to 15 s, not 5. */
export const expect = baseExpect.configure({ timeout: 15_000 });

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

/** Every page of the admin's navigation, in menu order, with its English heading (the overview's is the organisation). */
export const NAV_PAGES = [
  { path: "/", label: "Overview", name: "overview" },
  { path: "/memories", label: "Memories", name: "memories" },
  { path: "/sessions", label: "Sessions", name: "sessions" },
  { path: "/topics", label: "Topics", name: "topics" },
  { path: "/audit", label: "Audit log", name: "audit" },
  { path: "/stats", label: "Stats", name: "stats" },
  { path: "/admin/members", label: "Members", name: "members" },
  { path: "/admin/workspaces", label: "Workspaces", name: "workspaces" },
  { path: "/admin/grants", label: "Scope grants", name: "grants" },
  { path: "/admin/keys", label: "API keys", name: "keys" },
  { path: "/admin/settings", label: "Settings", name: "settings" },
] as const;

export type Seeded = { cardUrl: string; cardTitle: string; sessionUrl: string };

/**
 * Makes this spec's own data through a key of its own: a conversation with one message and two
 * cards citing it, one of a cooking kind (生活技能 / 做饭 / 饮食偏好) and one of an English-named
 * kind (preference / communication), so the category tree has both. Titles avoid words other specs
 * search for (香菜).
 */
export async function seedCardsAndSession(page: Page, tag: string): Promise<Seeded> {
  const secret = await createKey(page, `${tag} agent`);
  const agent = async (tool: string, body: unknown) => {
    const response = await page.request.post(`/api/trpc/tools.${tool}`, {
      headers: { authorization: `Bearer ${secret}` },
      data: body,
    });
    expect(response.ok(), await response.text()).toBe(true);
    return ((await response.json()) as { result: { data: Record<string, unknown> } }).result.data;
  };
  const turn = { sessionId: `${tag}-${Date.now()}` };
  const appended = await agent("message_append", {
    turn,
    messages: [{ role: "user", content: "记住：我做菜不放葱，回答要简短。" }],
  });
  const [said] = appended.messageIds as string[];
  const cardTitle = `${tag}: 做菜不放葱`;
  const written = await agent("memory_write", {
    turn,
    operations: [
      {
        op: "create",
        kind: "avoid_ingredient",
        explicitUserIntent: true,
        node: { title: cardTitle, content: "做菜时不要放葱。", valueJson: `葱-${tag}`, sourceMessageIds: [said] },
      },
      {
        op: "create",
        kind: "communication_preference",
        itemKey: `length-${tag}`,
        explicitUserIntent: true,
        node: {
          title: `${tag}: short answers`,
          content: "Keep answers short.",
          valueJson: "concise",
          sourceMessageIds: [said],
        },
      },
    ],
  });
  expect(written).toMatchObject({ done: true });
  const [first] = written.results as { nodeId: string }[];
  return {
    cardUrl: `/memories/${first!.nodeId}`,
    cardTitle,
    sessionUrl: `/sessions/${encodeURIComponent(turn.sessionId)}`,
  };
}

/** The page is no wider than the viewport: nothing makes the whole page scroll sideways. */
export async function expectNoSidewaysScroll(page: Page, where: string) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  }));
  expect(
    widths.scroll,
    `${where}: page is ${widths.scroll}px wide in a ${widths.viewport}px viewport`,
  ).toBeLessThanOrEqual(widths.viewport);
}

/** Picks a language in the visible language switch and waits for the reloaded page to speak it. */
export async function switchLanguage(page: Page, label: "Language" | "语言", locale: "en" | "zh") {
  await page.getByLabel(label, { exact: true }).selectOption(locale);
  await expect(page.locator("html")).toHaveAttribute("lang", locale === "zh" ? "zh-CN" : "en");
}

/** Sets the language cookie directly (for walks that are not about the switch itself). */
export async function setLanguageCookie(page: Page, locale: "en" | "zh") {
  const host = new URL(page.url()).hostname;
  await page.context().addCookies([{ name: "memory-locale", value: locale, domain: host, path: "/" }]);
}
