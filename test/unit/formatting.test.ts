import fs from "node:fs";
import path from "node:path";
import * as prettier from "prettier";
import { describe, expect, it } from "vitest";

/** The code is formatted by Prettier (.prettierrc.json), and `npm run lint` refuses code that is not. */
const root = path.resolve(import.meta.dirname, "../..");

describe("formatting", () => {
  it("npm run lint runs Prettier's check over the code after ESLint", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.lint).toMatch(/^eslint \. && prettier --check .*\*\*\/\*\.\{ts,tsx,mts,mjs,js,cjs\}/);
  });

  it("finds unformatted code and accepts it once formatted, with the project's settings", async () => {
    const filepath = path.join(root, "src/server/probe.ts");
    const options = { ...(await prettier.resolveConfig(filepath)), filepath };
    expect(options.printWidth).toBe(120);
    const messy = "export const probe = ( a:number )=>{ return a+1 }\n";
    expect(await prettier.check(messy, options)).toBe(false);
    expect(await prettier.check(await prettier.format(messy, options), options)).toBe(true);
  });

  it("leaves generated files alone: the OpenAPI copy and the migrations", async () => {
    for (const file of ["docs/openapi.json", "drizzle/0000_extensions.sql"]) {
      expect(fs.existsSync(path.join(root, file)), file).toBe(true);
      const info = await prettier.getFileInfo(path.join(root, file), {
        ignorePath: [path.join(root, ".prettierignore")],
      });
      expect(info.ignored, file).toBe(true);
    }
  });
});
