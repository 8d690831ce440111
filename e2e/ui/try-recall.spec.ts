import { expect, test } from "@playwright/test";
import { addMember, createCard, createKey, shot, signIn, signInAs } from "./helpers";

type ContextResult = { prompt: string; usedMemoryIds: string[] };

/**
 * Issue #31 item 5: an admin's "Try recall" on Bob's session shows what Bob's agent gets — Bob's
 * profile only, each card labelled with its owner — not the admin's own profile beside Bob's.
 */
test("try recall on a member's session shows that member's agent's recall, each card with its owner", async ({
  page,
  browser,
  playwright,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const stamp = Date.now().toString(36);
  const adminAccount = await signIn(page);
  const adminTitle = `管理员不吃香菜 ${stamp}`;
  const bobTitle = `Bob 不吃香菜 ${stamp}`;
  // The same slot (avoid_ingredient, item 芫荽: not the 香菜 another spec puts in the admin's profile) in each
  // person's own profile, with different titles.
  await createCard(page, {
    kind: "avoid_ingredient",
    item: "芫荽",
    title: adminTitle,
    content: "管理员做饭不要放香菜",
    value: "香菜",
  });

  const bob = { email: `bob-${stamp}@example.com`, name: "Bob Builder", password: "bob's long password" };
  await addMember(page, bob);
  const bobContext = await browser.newContext();
  const bobPage = await bobContext.newPage();
  await signInAs(bobPage, bob, "member");
  await createCard(bobPage, {
    kind: "avoid_ingredient",
    item: "芫荽",
    title: bobTitle,
    content: "Bob 做饭不要放香菜",
    value: "香菜",
  });
  const secret = await createKey(bobPage, `bob agent ${stamp}`);
  await bobContext.close();

  // Bob's agent captures a conversation of Bob's.
  const sessionId = `bob-dinner-${stamp}`;
  const agent = await playwright.request.newContext({
    baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${secret}` },
  });
  const appended = await agent.post("/api/trpc/tools.message_append", {
    data: { messages: [{ role: "user", content: "今晚做什么菜？" }], turn: { sessionId } },
  });
  expect(appended.status(), await appended.text()).toBe(200);

  // The admin opens Bob's session and tries recall.
  const question = "做饭要注意什么？";
  await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
  await page.getByLabel("Question").fill(question);
  await page.getByRole("button", { name: "Recall", exact: true }).click();
  const prompt = page.getByRole("region", { name: "Prompt block" });
  await expect(prompt).toContainText(bobTitle);
  await expect(prompt).not.toContainText(adminTitle);
  await expect(
    page.getByText(
      `Recalled as the agent of Bob Builder <${bob.email}>, with the key that captured this session: bob agent ${stamp}`,
    ),
  ).toBeVisible();
  // Bob's profile line carries Bob's name; no line carries the admin's.
  const bobLine = prompt.locator("p").filter({ hasText: bobTitle });
  await expect(bobLine).toHaveCount(1);
  await expect(bobLine).toContainText(`Bob Builder <${bob.email}>`);
  await expect(prompt).not.toContainText(adminAccount.email);
  const cards = page.getByRole("list", { name: "Cards in the prompt" });
  await expect(cards.getByRole("listitem").filter({ hasText: bobTitle })).toContainText(`Bob Builder <${bob.email}>`);
  await shot(page, "try-recall-admin-on-bob");

  // Bob's own key, same session and question: the same prompt, line for line, and the same cards.
  const context = await agent.post("/api/trpc/tools.memory_context", {
    data: { queryText: question, turn: { sessionId } },
  });
  expect(context.status(), await context.text()).toBe(200);
  const handed = ((await context.json()) as { result: { data: ContextResult } }).result.data;
  expect(handed.prompt).toContain(bobTitle);
  expect(handed.prompt).not.toContain(adminTitle);
  for (const line of handed.prompt.split("\n")) await expect(prompt).toContainText(line);
  const shownIds = (
    await cards.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""))
  ).map((href) => href.replace("/memories/", ""));
  expect(new Set(shownIds)).toEqual(new Set(handed.usedMemoryIds));
  await agent.dispose();

  // At phone width, and in Chinese.
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "try-recall-phone");
  await page.context().addCookies([{ name: "memory-locale", value: "zh", url: baseURL! }]);
  await page.reload();
  await page.getByLabel("问题").fill(question);
  await page.getByRole("button", { name: "召回", exact: true }).click();
  await expect(page.getByRole("region", { name: "提示块" })).toContainText(bobTitle);
  await expect(page.getByText(`以 Bob Builder <${bob.email}> 的智能体身份召回`)).toBeVisible();
  await shot(page, "try-recall-zh-phone");
  await page.context().clearCookies({ name: "memory-locale" });
});
