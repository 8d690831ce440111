import { describe, expect, it } from "vitest";
import { extractOperations } from "~/server/tree/extract-rules";

const statementsOf = (text: string) => extractOperations(text).filter((op) => op.node.tags?.includes("statement"));

describe("extraction family: statements about oneself", () => {
  it("keeps what the user tells about themselves that no other family names, quoting the sentence", () => {
    const [op] = statementsOf("Our old house had a huge garden with apple trees everywhere.");
    expect(op).toMatchObject({
      kind: "custom_fact",
      itemKey: "said:old house had huge",
      explicit: false,
      node: { content: "Our old house had a huge garden with apple trees everywhere." },
    });
    // "My kids" is the relationships family's: no second card for the same sentence.
    expect(
      extractOperations("My kids and I usually spend our weekends hiking near the lake.").map((o) => o.kind),
    ).toEqual(["personal_relationship"]);
  });

  it("leaves out questions, feelings, short lines, talk about the other person, and sentences another family took", () => {
    expect(statementsOf("Have you ever been to the museum downtown with your family?")).toEqual([]);
    expect(statementsOf("I'm so happy for you and your amazing family right now!")).toEqual([]);
    expect(statementsOf("I agree.")).toEqual([]);
    expect(statementsOf("Your painting of the lake looks wonderful, you should sell it.")).toEqual([]);
    // A plan is the plans family's.
    expect(
      extractOperations("I'm planning to go back to school for counseling next year.").map((op) => op.itemKey),
    ).toEqual(["plan:go back school counseling"]);
  });
});
