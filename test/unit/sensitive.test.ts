import { describe, expect, it } from "vitest";
import { detectSensitive, findSensitiveInDraft, redactSensitive } from "~/server/text/sensitive";

const found = (text: string) => detectSensitive(text).map((f) => [f.type, text.slice(f.start, f.end)]);

describe("detectSensitive", () => {
  it.each([
    ["key sk-proj-abcdEFGH1234ijklMNOP5678qrst", "api_key", "sk-proj-abcdEFGH1234ijklMNOP5678qrst"],
    ["AKIAIOSFODNN7EXAMPLE in config", "api_key", "AKIAIOSFODNN7EXAMPLE"],
    ['api_key = "Zx81kLmq0pRt"', "api_key", "Zx81kLmq0pRt"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"],
    ["slack xoxb-1234567890-abcdefghij", "token", "xoxb-1234567890-abcdefghij"],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc-123", "token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc-123"],
    ["Authorization: Bearer abcdefghijklmnop1234", "token", "abcdefghijklmnop1234"],
    ["password: hunter", "password", "hunter"],
    ["passwd=s3cr3t!", "password", "s3cr3t!"],
    ["my password is hunter2", "password", "hunter2"],
    ["我的密码是hunter2，别告诉别人", "password", "hunter2"],
    ["wifi 密码：abc12345。", "password", "abc12345"],
    ["card 4111 1111 1111 1111 expires", "card_number", "4111 1111 1111 1111"],
    ["card 5500-0000-0000-0004", "card_number", "5500-0000-0000-0004"],
    ["身份证号11010519491231002X。", "national_id", "11010519491231002X"],
    ["SSN 123-45-6789", "national_id", "123-45-6789"],
    ["手机13812345678", "phone", "13812345678"],
    ["call +1 415-555-2671", "phone", "+1 415-555-2671"],
    ["mail a.b@example.com", "email", "a.b@example.com"],
  ])("%s", (text, type, value) => {
    expect(found(text)).toEqual([[type, value]]);
  });

  it("finds a PEM private key block", () => {
    const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----";
    expect(found(`key:\n${pem}\nthanks`)).toEqual([["private_key", pem]]);
  });

  it("ignores look-alikes", () => {
    for (const text of [
      "password is required",
      "密码是什么？忘记密码了",
      "4111 1111 1111 1112", // fails Luhn
      "11010519491231002Y", // bad id checksum
      "110105194912310021", // bad id checksum
      "timestamp 1714567890123",
      "use sk-learn-is-a-great-library-here",
      "the token: expired",
      "version 2024-05-01",
      "我不吃香菜，喜欢少油少辣",
      "",
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });
});

it("stays linear on long runs (no catastrophic backtracking)", () => {
  const started = performance.now();
  for (const text of [
    "x".repeat(100_000),
    "a.".repeat(50_000),
    "1-".repeat(40_000),
    `-----BEGIN RSA PRIVATE KEY-----${"A".repeat(100_000)}`,
  ])
    detectSensitive(text);
  expect(performance.now() - started).toBeLessThan(2000);
});

describe("redactSensitive", () => {
  it("replaces secrets and ids, keeping labels and contacts by default", () => {
    expect(redactSensitive("我的密码是hunter2，卡号4111111111111111，邮箱a@b.co")).toBe(
      "我的密码是[REDACTED:password]，卡号[REDACTED:card_number]，邮箱a@b.co",
    );
    expect(redactSensitive("call 13812345678", { minSeverity: "low" })).toBe("call [REDACTED:phone]");
    expect(redactSensitive("nothing here")).toBe("nothing here");
  });
});

describe("findSensitiveInDraft", () => {
  it("reports the field path of each finding, including secret-named properties", () => {
    const findings = findSensitiveInDraft({
      title: "Server login",
      content: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      valueJson: { host: "db.internal", account: { password: "hunter" }, notes: ["card 4111 1111 1111 1111"] },
      tags: ["ops", "a@b.co"],
      entities: ["香菜"],
    });
    expect(findings.map((f) => [f.field, f.type])).toEqual([
      ["content", "token"],
      ["valueJson.account.password", "password"],
      ["valueJson.notes[0]", "card_number"],
      ["tags[1]", "email"],
    ]);
  });

  it("returns nothing for a harmless draft", () => {
    expect(
      findSensitiveInDraft({
        title: "用户不吃香菜",
        content: "推荐菜谱时避免香菜。",
        valueJson: "香菜",
        tags: ["忌口"],
      }),
    ).toEqual([]);
  });
});
