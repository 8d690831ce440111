import { defineConfig } from "drizzle-kit";

// Migrations are generated from the schema and committed; the app applies them itself at start-up
// (src/db/migrate.ts), so this config is only used by `drizzle-kit generate` and local `push`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
  dbCredentials: { url: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
});
