-- 0006_short_ids: memories are named by the last 8 hex digits of their id.
--
-- Ids are UUIDv7, whose leading digits are a clock: every memory written within a minute
-- shares its first 8 digits, so the banner and the tools show the last 8 (random) digits
-- instead, and memory_get resolves them through this index rather than a scan of the
-- project's rows. An id's text form has no dash in its last 12 characters.
CREATE INDEX IF NOT EXISTS memories_id_tail ON memories (right(id::text, 8));
