import { expect, test } from "@playwright/test";
import { addMember, createCard, shot, signIn, signInAs } from "./helpers";

/**
 * Issue #31 item 8 (its stats and naming part): a latency chart with one day of data draws points,
 * members' stats count their own searches, workspaces get readable ids, search results show no
 * score that is the same for every top hit, the signed-in person's name is shown, and a member's
 * sidebar has no Admin heading.
 */
test("stats, names and ids read as people expect", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  const admin = await signIn(page);

  // The admin's name, where the signed-in person is shown.
  await page.goto("/");
  await expect(page.getByText(`${admin.name}, signed in as ${admin.email}`)).toBeVisible();
  await expect(page.getByRole("complementary").getByText(admin.name, { exact: true })).toBeVisible();

  // A workspace named in Chinese keeps its name as its id.
  await page.goto("/admin/workspaces");
  await page.getByLabel("Name", { exact: true }).fill("测试项目");
  await expect(page.getByLabel("Id", { exact: true })).toHaveAttribute("placeholder", "测试项目");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await expect(page.getByRole("status").filter({ hasText: "was created" })).toContainText(/workspace:测试项目(-\d+)?/);
  await expect(page.getByRole("table", { name: "Workspaces" })).toContainText(/workspace:测试项目(-\d+)?/);
  await expect(page.getByRole("table", { name: "Workspaces" })).not.toContainText("workspace:ws-");
  await shot(page, "workspaces-chinese-id");

  // Two cards that match a search: ranked, with no score column.
  const title = `咖啡 ${stamp}`;
  await createCard(page, {
    kind: "custom_fact",
    item: `coffee-${stamp}`,
    title,
    content: `每天早上一杯咖啡 ${stamp}`,
    value: "咖啡",
  });
  await createCard(page, {
    kind: "custom_fact",
    item: `tea-${stamp}`,
    title: `茶 ${stamp}`,
    content: `下午喝茶，不喝咖啡 ${stamp}`,
    value: "茶",
  });
  await page.goto(`/memories?q=${encodeURIComponent(`咖啡 ${stamp}`)}`);
  const results = page.getByRole("table", { name: "Memory cards" });
  await expect(results.getByRole("link", { name: title })).toBeVisible();
  await expect(results.getByRole("columnheader", { name: "Rank" })).toBeVisible();
  await expect(results.getByRole("columnheader", { name: "Score" })).toHaveCount(0);
  await expect(results).not.toContainText("1.667");
  await shot(page, "search-without-scores");

  // The admin's searches today: the latency chart draws points, not only lines.
  await page.goto("/stats?days=7");
  const latency = page.getByRole("figure", { name: "Search latency per day" });
  await expect(latency.locator(".recharts-line-dot").first()).toBeVisible();
  await expect(page.getByRole("table", { name: "Latency by operation" })).toContainText("memory_search");
  // Let the charts finish drawing (their bars grow in) before the screenshot.
  await page.waitForTimeout(1_500);
  await shot(page, "stats-latency-points");

  // The audit log names people once, with what they are.
  await page.goto("/audit");
  await expect(page.getByRole("table", { name: "Audit log" }).getByText("person").first()).toBeVisible();

  // A member: named in the members list, own searches only in stats, no Admin heading.
  const mia = { email: `mia-${stamp}@example.com`, name: "Mia Member", password: "mia's long password" };
  await addMember(page, mia);
  await expect(
    page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: mia.email }),
  ).toContainText(mia.name);
  await shot(page, "members-with-names");
  const miaContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const miaPage = await miaContext.newPage();
  await signInAs(miaPage, mia, "member");
  await expect(miaPage.getByText(`${mia.name}, signed in as ${mia.email}`)).toBeVisible();
  const sidebar = miaPage.getByRole("complementary");
  await expect(sidebar.getByRole("link", { name: "API keys" })).toBeVisible();
  await expect(sidebar.getByText("Admin", { exact: true })).toHaveCount(0);
  await miaPage.goto("/stats?days=7");
  const totals = miaPage.getByRole("region", { name: "Totals" });
  await expect(
    totals
      .locator("div")
      .filter({ hasText: /^Searches/ })
      .locator("p")
      .nth(1),
  ).toHaveText("0");
  await expect(miaPage.getByRole("table", { name: "Latency by operation" })).toHaveCount(0);
  await shot(miaPage, "member-stats-own-searches");
  await miaContext.close();
});
