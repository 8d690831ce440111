import { expect, test } from "@playwright/test";
import {
  addMember,
  createCard,
  createKey,
  editContent,
  editField,
  forgetCard,
  shot,
  signIn,
  signInAs,
} from "./helpers";

/**
 * The dashboard end to end, in Debian's chromium against the production build: create a card through
 * the UI, find it by a Chinese search, edit it, lose a race to a second tab and see the conflict
 * dialog, forget and erase, then visit every main page (screenshots under e2e/artifacts/).
 *
 * Runs after sign-in.spec (project dependency), which creates the install's first admin. With open
 * sign-up this spec uses its own account (and organisation) instead.
 */
test("create, search in Chinese, edit, resolve a conflict, forget and erase a memory", async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);

  await page.goto("/memories");
  await expect(page.getByRole("heading", { name: "Memories", exact: true })).toBeVisible();

  await createCard(page, {
    kind: "avoid_ingredient",
    item: "香菜",
    title: "不吃香菜",
    content: "用户做饭时不要放香菜",
    value: "香菜",
  });
  await expect(page.getByText("Revision 1", { exact: true }).first()).toBeVisible();

  // Found by a Chinese search (the agents' hybrid search).
  await page.goto("/memories");
  await page.getByLabel("Search memories").fill("香菜");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await expect(page).toHaveURL(/q=%E9%A6%99%E8%8F%9C/);
  await expect(page.getByRole("table", { name: "Memory cards" }).getByRole("link", { name: "不吃香菜" })).toBeVisible();
  await shot(page, "memories-search");
  await page.getByRole("link", { name: "不吃香菜" }).click();
  await page.waitForURL(/\/memories\/mem_/);

  // Edit: a new revision, shown in the chain.
  const revision1 = page.url();
  await editContent(page, "用户做饭时绝对不要放香菜");
  await page.waitForURL((url) => url.toString() !== revision1);
  const chain = page.getByRole("list", { name: "Revision chain" });
  await expect(chain.getByText("Revision 2", { exact: true })).toBeVisible();
  await expect(chain.getByText("Revision 1", { exact: true })).toBeVisible();
  // No agent was handed it yet: the page says so (people viewing and searching do not count).
  await expect(page.getByText("Times handed to agents")).toBeVisible();
  await shot(page, "card");

  // A second tab saves first; this tab's edit must not overwrite it.
  const other = await page.context().newPage();
  await other.goto(page.url());
  const revision2 = other.url();
  await editContent(other, "另一个标签页的修改：不要香菜");
  await other.waitForURL((url) => url.toString() !== revision2);
  await expect(
    other.getByRole("list", { name: "Revision chain" }).getByText("Revision 3", { exact: true }),
  ).toBeVisible();
  await other.close();

  await editContent(page, "我的修改：香菜一点都不要");
  const conflict = page.getByRole("dialog", { name: "This memory changed while you edited it" });
  await expect(conflict).toBeVisible();
  await expect(conflict.getByText("Your version")).toBeVisible();
  await expect(conflict.getByText(/Current: revision 3/)).toBeVisible();
  await expect(conflict.getByText("另一个标签页的修改：不要香菜")).toBeVisible();
  await shot(page, "conflict");
  // Both tabs changed the content: nothing is applied until this tab chooses which one stays.
  const apply = conflict.getByRole("button", { name: "Apply mine on top of revision 3" });
  await expect(apply).toBeDisabled();
  await conflict.getByRole("group", { name: "Which Content should revision 4 have?" }).getByLabel("Use yours").check();
  const stale = page.url();
  await apply.click();
  await page.waitForURL((url) => url.toString() !== stale);
  await expect(
    page.getByRole("list", { name: "Revision chain" }).getByText("Revision 4", { exact: true }),
  ).toBeVisible();
  await expect(page.getByText("我的修改：香菜一点都不要").first()).toBeVisible();

  // Audit timeline names the person for every change.
  await expect(page.getByRole("list", { name: "Audit timeline" }).getByText("update")).toHaveCount(3);

  // Soft forget.
  await forgetCard(page, "the user asked to forget it");
  await expect(page.getByRole("button", { name: "Edit", exact: true })).toHaveCount(0);

  // Hard erase with typed confirmation and an erasure receipt.
  await createCard(page, {
    kind: "custom_fact",
    item: "e2e erase",
    title: "Erase me",
    content: "A temporary fact for the erase test.",
    value: "temporary",
  });
  await page.getByRole("button", { name: "Erase permanently" }).click();
  const erase = page.getByRole("dialog", { name: "Erase memory permanently" });
  const prompt = (await erase.getByText(/^Type .+ to confirm$/).textContent()) ?? "";
  const key = prompt.replace(/^Type /, "").replace(/ to confirm$/, "");
  await erase.getByLabel("Reason").fill("test data");
  await expect(erase.getByRole("button", { name: "Erase permanently" })).toBeDisabled();
  await erase.getByLabel(/^Type .+ to confirm$/).fill(key);
  await erase.getByRole("button", { name: "Erase permanently" }).click();
  const receipt = page.getByRole("dialog", { name: "Erasure receipt" });
  await expect(receipt).toBeVisible();
  await expect(receipt.getByText("Revisions")).toBeVisible();
  await shot(page, "erasure-receipt");
  await receipt.getByRole("link", { name: "Back to memories" }).click();
  await page.waitForURL(/\/memories$/);

  // History is one filter away: deleted cards appear when asked for.
  await page.goto("/memories?status=deleted");
  await expect(page.getByRole("table", { name: "Memory cards" }).getByRole("link", { name: "不吃香菜" })).toBeVisible();
  await shot(page, "memories-deleted");
});

test("an edit of the title, tags or confidence alone saves a new revision; a card under the recall threshold says agents skip it", async ({
  page,
}) => {
  await signIn(page);
  await createCard(page, {
    kind: "avoid_ingredient",
    item: "大蒜",
    title: "不吃大蒜",
    content: "用户不吃大蒜",
    value: "大蒜",
  });
  const edit = async (field: "Title" | "Tags" | "Confidence", value: string, revision: string) => {
    const before = page.url();
    await editField(page, field, value);
    await page.waitForURL((url) => url.toString() !== before);
    await expect(page.getByRole("list", { name: "Revision chain" }).getByText(revision, { exact: true })).toBeVisible();
  };
  await edit("Title", "完全不吃大蒜", "Revision 2");
  await expect(page.getByRole("heading", { level: 1, name: "完全不吃大蒜" })).toBeVisible();
  await edit("Tags", "饮食, 过敏", "Revision 3");
  await expect(page.getByText("Nothing changed: the card already says this.")).toHaveCount(0);
  // Under the recall threshold the page says agents will not recall it.
  await expect(page.getByText(/Agents do not recall this card/)).toHaveCount(0);
  await edit("Confidence", "0.2", "Revision 4");
  await expect(
    page.getByRole("note").filter({ hasText: "Agents do not recall this card: its confidence 0.2 is under 0.35." }),
  ).toBeVisible();
});

test("a key made with the form's defaults runs the agent loop, and the session shows what was saved from each message", async ({
  page,
}) => {
  await signIn(page);
  const secret = await createKey(page, "loop agent");
  const agent = async (tool: string, body: unknown) => {
    const response = await page.request.post(`/api/trpc/tools.${tool}`, {
      headers: { authorization: `Bearer ${secret}` },
      data: body,
    });
    expect(response.ok(), await response.text()).toBe(true);
    return ((await response.json()) as { result: { data: Record<string, unknown> } }).result.data;
  };
  const turn = { sessionId: `loop-${Date.now()}` };
  const appended = await agent("message_append", {
    turn,
    messages: [{ role: "user", content: "记住：我女儿小米七岁，喜欢恐龙。" }],
  });
  const [said] = appended.messageIds as string[];
  const written = await agent("memory_write", {
    turn,
    operations: [
      {
        op: "create",
        kind: "personal_relationship",
        itemKey: "小米",
        explicitUserIntent: true,
        node: {
          title: "女儿小米",
          content: "女儿小米七岁，喜欢恐龙。",
          valueJson: { name: "小米", relation: "女儿" },
          sourceMessageIds: [said],
        },
      },
    ],
  });
  expect(written).toMatchObject({ done: true });

  await page.goto(`/sessions/${encodeURIComponent(turn.sessionId)}`);
  const message = page
    .getByRole("list", { name: "Messages" })
    .getByRole("listitem")
    .filter({ hasText: "记住：我女儿小米七岁" });
  await expect(message.getByText("Saved as")).toBeVisible();
  await message.getByRole("link", { name: "女儿小米" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "女儿小米" })).toBeVisible();
});

test("a forgotten card is restored from its page, and a conversation is erased from its session page", async ({
  page,
}) => {
  await signIn(page);
  await createCard(page, {
    kind: "custom_fact",
    item: "e2e restore",
    title: "Restore me",
    content: "Forgotten by mistake.",
    value: "restore",
  });
  const forgotten = page.url();
  await forgetCard(page, "forgot it by mistake");
  await page.getByRole("button", { name: "Restore", exact: true }).click();
  const restore = page.getByRole("dialog", { name: "Restore memory" });
  await restore.getByLabel("Reason").fill("it was right after all");
  await restore.getByRole("button", { name: "Restore", exact: true }).click();
  await page.waitForURL((url) => url.toString() !== forgotten);
  await expect(
    page.getByRole("list", { name: "Revision chain" }).getByText("Revision 2", { exact: true }),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Edit", exact: true })).toBeVisible();
  await expect(page.getByRole("list", { name: "Audit timeline" }).getByText("restore", { exact: true })).toBeVisible();
  await shot(page, "restored");

  // An agent's conversation, then erased whole from its page.
  const secret = await createKey(page, "erase agent");
  const sessionId = `erase-${Date.now()}`;
  const response = await page.request.post("/api/trpc/tools.message_append", {
    headers: { authorization: `Bearer ${secret}` },
    data: {
      turn: { sessionId },
      messages: [
        { role: "user", content: "My locker code is 4711." },
        { role: "assistant", content: "Noted." },
      ],
    },
  });
  expect(response.ok(), await response.text()).toBe(true);
  await page.goto(`/sessions/${sessionId}`);
  await page.getByRole("button", { name: "Erase conversation" }).click();
  const erase = page.getByRole("dialog", { name: "Erase this conversation permanently" });
  await erase.getByLabel("Reason").fill("the user asked");
  await expect(erase.getByRole("button", { name: "Erase conversation" })).toBeDisabled();
  await erase.getByLabel(`Type ${sessionId} to confirm`).fill(sessionId);
  await erase.getByRole("button", { name: "Erase conversation" }).click();
  const receipt = page.getByRole("dialog", { name: "Erasure receipt" });
  await expect(receipt.getByRole("definition").nth(2)).toHaveText("2");
  await shot(page, "session-erased");
  await receipt.getByRole("link", { name: "Back to sessions" }).click();
  await page.waitForURL(/\/sessions$/);
  await expect(page.getByText(sessionId)).toHaveCount(0);
});

test("every main page renders, with exports and the language switch", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);

  await page.goto("/audit");
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Audit log" }).getByText("member").first()).toBeVisible();
  await shot(page, "audit");
  const csv = await page.request.get("/audit/export?format=csv");
  expect(csv.status()).toBe(200);
  expect(await csv.text()).toMatch(/^id,createdAt,eventType/);
  const jsonl = await page.request.get("/memories/export?status=active&status=deleted");
  expect(jsonl.status()).toBe(200);

  for (const [path, heading, name] of [
    ["/memories", "Memories", "memories"],
    ["/sessions", "Sessions", "sessions"],
    ["/stats", "Stats", "stats"],
    ["/topics", "Topics", "topics"],
    ["/memories/transfer", "Import / export", "transfer"],
    ["/admin/members", "Members", "members"],
    ["/admin/workspaces", "Workspaces", "workspaces"],
    ["/admin/grants", "Scope grants", "grants"],
    ["/admin/settings", "Settings", "settings"],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: heading, exact: true })).toBeVisible();
    await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toHaveCount(0);
    await shot(page, name);
  }

  // API keys: the secret is shown once.
  await createKey(page, "e2e agent", "keys-secret");
  await shot(page, "keys");

  // Members: an admin adds one; the member is refused the admin pages and sees only their grants.
  const member = { email: `max-${Date.now()}@example.com`, name: "Max Member", password: "member password 1" };
  await addMember(page, member);
  await shot(page, "members-added");

  const memberContext = await page.context().browser()!.newContext();
  const memberPage = await memberContext.newPage();
  await signInAs(memberPage, member, "member");
  await expect(
    memberPage.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Scope grants" }),
  ).toHaveCount(0);
  await memberPage.goto("/admin/members");
  await expect(memberPage.getByRole("alert").filter({ hasText: "Only admins can open this page." })).toBeVisible();
  await memberPage.goto("/memories?status=active&status=deleted");
  await expect(memberPage.getByText("No memories match")).toBeVisible();
  await memberContext.close();

  // 中文界面 through the language cookie.
  const host = new URL(page.url()).hostname;
  await page.context().addCookies([{ name: "memory-locale", value: "zh", domain: host, path: "/" }]);
  await page.goto("/memories");
  await expect(page.getByRole("heading", { level: 1, name: "记忆" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "主导航" }).getByRole("link", { name: "审计日志" })).toBeVisible();
  await shot(page, "memories-zh");
  await page.context().addCookies([{ name: "memory-locale", value: "en", domain: host, path: "/" }]);
});
