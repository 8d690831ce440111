-- A card that a more specific scope overrides (a session's "answer in Chinese" over the user's "answer in
-- English") is marked, so that a search finding it looks for the override (slot-rivals.ts) without
-- probing for one on every hit of every search.
ALTER TABLE "memory_nodes" ADD COLUMN "shadowed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "memory_nodes_active_key_idx" ON "memory_nodes" USING btree ("tenant_id","key") WHERE "memory_nodes"."status" = 'active';--> statement-breakpoint
-- SCOPE_PRIORITY of src/server/memory/scope.ts (a test keeps them equal).
CREATE FUNCTION memory_scope_priority(scope_type text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE scope_type WHEN 'session' THEN 5 WHEN 'workspace' THEN 4 WHEN 'user' THEN 3 WHEN 'context' THEN 2 ELSE 1 END
$$;--> statement-breakpoint
-- A card becoming active marks the slot's active cards of broader scopes, and is marked itself when a
-- more specific scope already holds one. Writers of one slot take turns (a transaction-long advisory lock
-- on tenant + domain + key), and each statement here reads with a fresh snapshot (read committed), so
-- two racing writers in different scopes still see each other's card.
CREATE FUNCTION memory_nodes_mark_shadowed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(NEW.tenant_id || chr(1) || NEW.domain || chr(1) || NEW.key, 7321));
  UPDATE memory_nodes SET shadowed = true
   WHERE tenant_id = NEW.tenant_id AND key = NEW.key AND status = 'active' AND domain = NEW.domain AND NOT shadowed
     AND memory_scope_priority(scope_type) < memory_scope_priority(NEW.scope_type);
  -- Recomputed, not copied: a new revision or a restored card carries its predecessor's columns.
  NEW.shadowed := EXISTS (
    SELECT 1 FROM memory_nodes
     WHERE tenant_id = NEW.tenant_id AND key = NEW.key AND status = 'active' AND domain = NEW.domain AND id <> NEW.id
       AND memory_scope_priority(scope_type) > memory_scope_priority(NEW.scope_type));
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER memory_nodes_mark_shadowed BEFORE INSERT OR UPDATE OF status ON memory_nodes
  FOR EACH ROW WHEN (NEW.status = 'active') EXECUTE FUNCTION memory_nodes_mark_shadowed();--> statement-breakpoint
-- The cards stored before this release.
UPDATE memory_nodes AS m SET shadowed = true
 WHERE m.status = 'active' AND EXISTS (
   SELECT 1 FROM memory_nodes AS r
    WHERE r.tenant_id = m.tenant_id AND r.key = m.key AND r.status = 'active' AND r.domain = m.domain
      AND memory_scope_priority(r.scope_type) > memory_scope_priority(m.scope_type));
