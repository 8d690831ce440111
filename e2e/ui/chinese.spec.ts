import { test } from "@playwright/test";
import { shot, signIn } from "./helpers";
import { expect, seedCardsAndSession, switchLanguage } from "./layout-helpers";

/**
 * The dashboard in Chinese, completely: the page language and tab title, the built-in kinds'
 * descriptions and value hints, event badges and actor types, score names, the install's default
 * organisation, a language switch on the sign-in page, and a category tree in one language.
 */
test("switched to Chinese, every part of the dashboard speaks Chinese", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  const seeded = await seedCardsAndSession(page, "zh-test");

  await page.goto("/");
  await switchLanguage(page, "Language", "zh");
  await expect(page).toHaveTitle("概览 · 记忆库");
  await expect(page.getByRole("heading", { level: 1, name: "默认组织" })).toBeVisible();
  await expect(page.getByText(/（管理员）|\(管理员\)/)).toBeVisible();

  await page.goto("/memories");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page).toHaveTitle("记忆 · 记忆库");
  await expect(page.getByRole("heading", { level: 1, name: "记忆" })).toBeVisible();
  // Category paths of both kinds of kind, in Chinese.
  const table = page.getByRole("table", { name: "记忆卡片" });
  await expect(table.getByText("生活技能 / 做饭 / 饮食偏好").first()).toBeVisible();
  await expect(table.getByText("偏好 / 沟通").first()).toBeVisible();
  await shot(page, "zh-memories");

  // The category tree: one language, whichever language a kind's path was written in.
  for (const path of ["/topics", "/memories"]) {
    await page.goto(path);
    const tree =
      path === "/topics"
        ? page.getByRole("list", { name: "领域与分类" })
        : page.getByRole("navigation", { name: "分类树" });
    for (const name of ["生活技能", "做饭", "饮食偏好", "偏好", "沟通"])
      await expect(tree.getByText(name, { exact: true }).first()).toBeVisible();
    await expect(tree).not.toContainText("preference");
    await expect(tree).not.toContainText("communication");
  }
  await shot(page, "zh-topics");

  // A built-in kind's description and value hint on the create form.
  await page.goto("/memories/new");
  await expect(page).toHaveTitle("新建记忆 · 记忆库");
  await page.getByLabel("类型", { exact: true }).selectOption("avoid_ingredient");
  await expect(
    page.getByText("用户不吃的食材或食物（不喜欢、过敏、宗教原因），每项一张卡片。", { exact: false }),
  ).toBeVisible();
  await expect(
    page.getByText(/食材或食物（"香菜"、"花生"），或 \{ ingredient（或 food）, note\?, reason\? \}/),
  ).toBeVisible();
  await shot(page, "zh-new");

  // Event badges and actor types, on the card's timeline and in the audit log; score names in "why recalled".
  await page.goto(seeded.cardUrl);
  const timeline = page.getByRole("list", { name: "审计时间线" });
  await expect(timeline.getByText("创建", { exact: true })).toBeVisible();
  await expect(timeline.getByText("API 密钥", { exact: true })).toBeVisible();
  const scores = page.getByRole("table", { name: "得分构成" });
  await expect(scores.getByRole("rowheader", { name: "最终得分" })).toBeVisible();
  await expect(scores.getByRole("rowheader", { name: "全文" })).toBeVisible();
  await expect(scores).not.toContainText("fullText");
  await shot(page, "zh-card");

  await page.goto("/audit");
  await expect(page).toHaveTitle("审计日志 · 记忆库");
  const log = page.getByRole("table", { name: "审计日志" });
  await expect(log.getByText("创建", { exact: true }).first()).toBeVisible();
  await expect(log.getByText("API 密钥", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("group", { name: "事件" }).getByText("永久删除")).toBeVisible();
  await shot(page, "zh-audit");

  // Back in English, the same tree is English.
  await switchLanguage(page, "语言", "en");
  await page.goto("/topics");
  const tree = page.getByRole("list", { name: "Domains and categories" });
  for (const name of ["life skills", "cooking", "dietary preferences", "preference", "communication"])
    await expect(tree.getByText(name, { exact: true }).first()).toBeVisible();
  await expect(tree).not.toContainText("生活技能");
  await expect(page).toHaveTitle("Topics · Memory");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
});

test("the sign-in page has a language switch and signs in in Chinese", async ({ page, browser }) => {
  const account = await signIn(page);
  const context = await browser.newContext();
  const visitor = await context.newPage();
  await visitor.goto(new URL("/sign-in", page.url()).toString());
  await expect(visitor.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
  await switchLanguage(visitor, "Language", "zh");
  await expect(visitor).toHaveTitle("登录 · 记忆库");
  await expect(visitor.getByRole("heading", { level: 1, name: "登录" })).toBeVisible();
  await shot(visitor, "zh-sign-in");

  await visitor.getByLabel("邮箱").fill(account.email);
  await visitor.getByLabel("密码").fill("not the password");
  await visitor.getByRole("button", { name: "登录" }).click();
  await expect(visitor.getByRole("alert").filter({ hasText: "邮箱或密码错误。" })).toBeVisible();
  await visitor.getByLabel("密码").fill(account.password);
  await visitor.getByRole("button", { name: "登录" }).click();
  await expect(
    visitor.getByRole("navigation", { name: "主导航" }).getByRole("link", { name: "审计日志" }),
  ).toBeVisible();
  await expect(visitor.locator("html")).toHaveAttribute("lang", "zh-CN");
  await context.close();
});
