-- Custom migration: the extensions the schema needs. pgvector (`vector`) for embeddings and
-- pg_trgm for substring / typo search. Both ship with PGlite's contrib set and with
-- pgvector/pgvector images; scripts/setup-postgres.sh installs pgvector on a Debian Postgres.
CREATE EXTENSION IF NOT EXISTS vector;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;
