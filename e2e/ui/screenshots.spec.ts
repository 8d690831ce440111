import { test, type Page } from "@playwright/test";
import { shot, signIn } from "./helpers";
import {
  DESKTOP,
  expect,
  expectNoSidewaysScroll,
  NAV_PAGES,
  PHONE,
  seedCardsAndSession,
  setLanguageCookie,
} from "./layout-helpers";

/**
 * A screenshot of every dashboard page (the navigation's, a card, a session, the create and import
 * pages, sign-in) in English and Chinese, at 1280 × 800 and 390 × 844, under
 * e2e/artifacts/dashboard-shots-<size>-<language>-<page>.png; at 390 no page may scroll sideways.
 */
const SIZES = [
  { name: "desktop", viewport: DESKTOP },
  { name: "phone", viewport: PHONE },
] as const;
const LANGUAGES = ["en", "zh"] as const;

async function visit(page: Page, path: string, file: string, phone: boolean) {
  await page.goto(path);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  // Nothing still loading (the "why recalled" answer, charts) in the picture.
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  if (phone) await expectNoSidewaysScroll(page, path);
  await shot(page, file);
}

test("every page in both languages at both sizes", async ({ page, browser }) => {
  test.setTimeout(600_000);
  await signIn(page);
  const seeded = await seedCardsAndSession(page, "shots");
  const pages = [
    ...NAV_PAGES.map((p) => ({ path: p.path, name: p.name })),
    { path: "/memories/new", name: "memory-new" },
    { path: "/memories/transfer", name: "transfer" },
    { path: seeded.cardUrl, name: "card" },
    { path: seeded.sessionUrl, name: "session" },
  ];

  for (const language of LANGUAGES) {
    await setLanguageCookie(page, language);
    for (const size of SIZES) {
      await page.setViewportSize(size.viewport);
      for (const target of pages)
        await visit(page, target.path, `shots-${size.name}-${language}-${target.name}`, size.name === "phone");
    }
    // Signed out, in a browser of its own.
    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: size.viewport });
      await context.addCookies([{ name: "memory-locale", value: language, url: new URL("/", page.url()).toString() }]);
      const visitor = await context.newPage();
      await visit(
        visitor,
        new URL("/sign-in", page.url()).toString(),
        `shots-${size.name}-${language}-sign-in`,
        size.name === "phone",
      );
      await expect(visitor.locator("html")).toHaveAttribute("lang", language === "zh" ? "zh-CN" : "en");
      await context.close();
    }
  }
});
