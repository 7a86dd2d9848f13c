-- 0002_deferred_ann: bulk imports load at COPY speed and join the HNSW graph afterwards.
--
-- Inserting a row into an HNSW index costs about a millisecond of CPU, far more than the rest
-- of the insert. Imported rows therefore arrive with ann_deferred = true, which keeps them out of
-- every embedder's partial HNSW index (whose predicate is `embedder = '<name>' AND NOT
-- ann_deferred`, rebuilt by the host at boot). Nearest-neighbour queries scan deferred rows
-- exactly next to the index, so they are found at once; a background indexer in each host
-- clears the flag in small batches, which is when each row's graph insertion happens.
ALTER TABLE memories ADD COLUMN ann_deferred boolean NOT NULL DEFAULT false;

-- The indexer's work queue and the exact scan's access path, keyed by scope so a large import
-- into one project costs nothing to lookups in another; empty when nothing is pending.
CREATE INDEX memories_ann_deferred ON memories (scope, scope_key) WHERE ann_deferred;
