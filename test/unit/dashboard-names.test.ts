import { describe, expect, it } from "vitest";
import { navFor, NAV } from "~/components/nav";
import { parseScope } from "~/server/memory/scope";
import { firstFreeId, WORKSPACE_ID, workspaceIdFromName } from "~/server/dashboard/workspace-id";

describe("workspace ids from names", () => {
  it("keeps the name readable: CJK as it is, other scripts lower-cased, separators as -", () => {
    expect(workspaceIdFromName("测试项目")).toBe("测试项目");
    expect(workspaceIdFromName("Mobile App 2")).toBe("mobile-app-2");
    expect(workspaceIdFromName("データ分析")).toBe("データ分析");
    expect(workspaceIdFromName("Café Ünïcode")).toBe("café-ünïcode");
    expect(workspaceIdFromName("ＡＢＣ１２３")).toBe("abc123");
    expect(workspaceIdFromName("a:b/c*d e")).toBe("a-b-c-d-e");
    expect(workspaceIdFromName("!!!")).toBe("workspace");
    expect([...workspaceIdFromName("项".repeat(100))]).toHaveLength(48);
  });

  it("makes ids that are valid scope ids and pass the typed-id rule", () => {
    for (const name of ["测试项目", "Mobile App", "データ分析", "한국 프로젝트", "🚀 launch", "!!!"]) {
      const id = workspaceIdFromName(name);
      expect(WORKSPACE_ID.test(id), id).toBe(true);
      expect(parseScope(`workspace:${id}`)).toEqual({ type: "workspace", id });
    }
    for (const bad of ["Has Spaces", "a:b", "a/b", "-lead", "UPPER", "*"])
      expect(WORKSPACE_ID.test(bad), bad).toBe(false);
  });

  it("numbers an id that is taken", () => {
    expect(firstFreeId("测试项目", new Set())).toBe("测试项目");
    expect(firstFreeId("测试项目", new Set(["测试项目", "测试项目-2"]))).toBe("测试项目-3");
  });
});

describe("sidebar sections", () => {
  it("admins see the Admin heading; members one list with their API keys and no admin heading", () => {
    expect(navFor(true)).toBe(NAV);
    const member = navFor(false);
    expect(member.map((s) => s.title)).toEqual([undefined]);
    expect(member[0]!.items.map((i) => i.href)).toEqual([
      "/",
      "/memories",
      "/sessions",
      "/topics",
      "/audit",
      "/stats",
      "/admin/keys",
    ]);
  });
});
