-- 0007_document_versions: a goal's or plan's version counts its own texts, from 1.
--
-- Versions used to be the global change seq, so a project's first goal could be "version 6".
-- A document's version is now read from the history ledger (its add and update events); a
-- proposal keeps the version it was made against beside base_seq, which stays the guard
-- that makes a stale proposal unappliable. Proposals made before this migration get the
-- version their document had when they were made: the document's add and update events up to
-- that moment, so their order is kept. Forward-only; running it again changes nothing.
ALTER TABLE proposals ADD COLUMN IF NOT EXISTS base_version bigint NOT NULL DEFAULT 0;

UPDATE proposals p SET base_version = GREATEST(1, (
        SELECT count(*) FROM memory_history h JOIN memories d ON d.id = h.memory_id
        WHERE d.scope = 'project' AND d.scope_key = p.scope_key AND d.kind = p.layer
            AND h.event IN ('add', 'update') AND h.created_at <= p.created_at))
    WHERE p.base_seq <> 0 AND p.base_version = 0;
