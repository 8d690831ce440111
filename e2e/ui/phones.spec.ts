import { test } from "@playwright/test";
import { shot, signIn } from "./helpers";
import {
  DESKTOP,
  expect,
  expectNoSidewaysScroll,
  NAV_PAGES,
  PHONE,
  seedCardsAndSession,
  switchLanguage,
} from "./layout-helpers";

/**
 * The dashboard on a phone (390 × 844): a menu with every page, the language switch and sign-out;
 * the memory filters collapsed so the first memory is on the first screen; memories as a list of
 * cards; and no page that scrolls sideways.
 */
test.use({ viewport: PHONE });

test("the phone menu reaches every page, switches the language and signs out", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const nav = page.getByRole("navigation", { name: "Main" });
  const navZh = page.getByRole("navigation", { name: "主导航" });
  const openMenu = async (menu = nav, button = "Menu") => {
    if (!(await menu.isVisible())) await page.getByRole("button", { name: button, exact: true }).click();
    await expect(menu).toBeVisible();
  };
  // Closed, the menu leaves the page to the content.
  await expect(nav).toBeHidden();
  await expect(page.getByRole("button", { name: "Menu", exact: true })).toHaveAttribute("aria-expanded", "false");

  for (const target of NAV_PAGES) {
    await openMenu();
    const link = nav.getByRole("link", { name: target.label, exact: true });
    await link.scrollIntoViewIfNeeded();
    await expect(link).toBeInViewport();
    await link.click();
    await page.waitForURL((url) => url.pathname === target.path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    if (target.path !== "/") await expect(nav).toBeHidden();
  }

  await openMenu();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await shot(page, "phone-menu");
  await switchLanguage(page, "Language", "zh");
  await openMenu(navZh, "菜单");
  await expect(navZh.getByRole("link", { name: "审计日志" })).toBeVisible();
  await expect(page.getByRole("button", { name: "退出登录" })).toBeVisible();
  await shot(page, "phone-menu-zh");
  await switchLanguage(page, "语言", "en");

  await openMenu();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
});

test("on a phone the filters start collapsed and memories are a list of cards", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await page.setViewportSize(DESKTOP);
  await seedCardsAndSession(page, "phone-list");
  await page.setViewportSize(PHONE);

  await page.goto("/memories");
  const toggle = page.getByRole("button", { name: "Show filters" });
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(page.getByRole("group", { name: "Status" })).toBeHidden();
  await expect(page.getByRole("navigation", { name: "Categories" })).toBeHidden();

  // The first memory is on the first screen, with no scrolling past filters.
  const firstCard = page.locator("main tbody tr").first();
  const firstLink = firstCard.getByRole("link").first();
  await expect(firstLink).toBeInViewport();
  const box = (await firstLink.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);

  // Cards, not a table: no column headers, every card as wide as the list, nothing scrolls sideways.
  await expect(page.locator("main thead")).toBeHidden();
  const cardBox = (await firstCard.boundingBox())!;
  expect(cardBox.x).toBeGreaterThanOrEqual(0);
  expect(cardBox.x + cardBox.width).toBeLessThanOrEqual(PHONE.width);
  const list = page.locator("main table").first();
  expect(await list.evaluate((table) => table.parentElement!.scrollWidth <= table.parentElement!.clientWidth)).toBe(
    true,
  );
  await expectNoSidewaysScroll(page, "/memories");
  await shot(page, "phone-memories");

  await toggle.click();
  await expect(page.getByRole("button", { name: "Hide filters" })).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByRole("group", { name: "Status" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Categories" })).toBeVisible();
  await shot(page, "phone-memories-filters");

  // A search (for the seeded card) answers as cards too.
  await page.getByLabel("Search memories").fill("葱");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await page.waitForURL(/q=/);
  await expect(page.locator("main thead")).toBeHidden();
  await expect(page.locator("main tbody tr").first().getByRole("link").first()).toBeInViewport();
  await expectNoSidewaysScroll(page, "/memories?q=葱");
});

test("no dashboard page scrolls sideways on a phone", async ({ page, browser }) => {
  test.setTimeout(180_000);
  await signIn(page);
  await page.setViewportSize(DESKTOP);
  const seeded = await seedCardsAndSession(page, "phone-pages");
  await page.setViewportSize(PHONE);

  const paths = [
    ...NAV_PAGES.map((p) => p.path),
    "/memories/new",
    "/memories/transfer",
    seeded.cardUrl,
    seeded.sessionUrl,
  ];
  for (const path of paths) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectNoSidewaysScroll(page, path);
  }

  const signedOut = await browser.newContext({ viewport: PHONE });
  const signInPage = await signedOut.newPage();
  await signInPage.goto(new URL("/sign-in", page.url()).toString());
  await expect(signInPage.getByRole("heading", { level: 1 })).toBeVisible();
  await expectNoSidewaysScroll(signInPage, "/sign-in");
  await signedOut.close();
});
