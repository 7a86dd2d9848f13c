-- 0003_vector_guard: every stored vector has its embedder's dimensions, and a row the ANN
-- indexer cannot index is set aside instead of stalling it.
--
-- One vector of the wrong width (an import once accepted a 3-dimensional vector for a
-- 384-dimensional embedder) broke every nearest-neighbour query in its project, whose
-- `embedding::vector(N)` cast fails on it, and stalled the background indexer for every
-- project, whose batch update failed on it forever.

-- The width of each embedder's vectors. The first vector an embedder stores registers it (the
-- host also registers its active embedder at boot, from the plugin's own description).
CREATE TABLE embedder_dimensions (
    embedder   text PRIMARY KEY,
    dimensions integer NOT NULL CHECK (dimensions > 0)
);

-- Existing databases: an embedder's HNSW index says its width (the host built it from the
-- plugin's description); embedders without one take the width of their indexed rows, else the
-- most common width among their rows.
INSERT INTO embedder_dimensions (embedder, dimensions)
SELECT DISTINCT ON (embedder) embedder, dimensions
FROM (
    SELECT substring(def FROM 'embedder = ''([^'']+)''') AS embedder,
           substring(def FROM '::vector\((\d+)\)')::integer AS dimensions
    FROM (SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = 'memories'::regclass) i
    WHERE def LIKE '%USING hnsw%'
) idx
WHERE embedder IS NOT NULL AND dimensions IS NOT NULL
ORDER BY embedder;

INSERT INTO embedder_dimensions (embedder, dimensions)
SELECT DISTINCT ON (embedder) embedder, vector_dims(embedding)
FROM memories
GROUP BY embedder, vector_dims(embedding)
ORDER BY embedder, bool_or(NOT ann_deferred) DESC, count(*) DESC
ON CONFLICT (embedder) DO NOTHING;

-- Why the ANN index refused a row; NULL for every healthy row. A row with a reason stays
-- ann_deferred (out of the HNSW graph) and the indexer no longer picks it up.
ALTER TABLE memories ADD COLUMN ann_error text;

UPDATE memories m
SET ann_deferred = true,
    ann_error = format('vector has %s dimensions; embedder %s stores %s', vector_dims(m.embedding), m.embedder, d.dimensions)
FROM embedder_dimensions d
WHERE d.embedder = m.embedder AND vector_dims(m.embedding) <> d.dimensions;

-- The guard: a row whose vector disagrees with its embedder's registered width is refused, on
-- every path (write, fold, import, hand-written SQL). It costs one primary-key lookup per row.
CREATE FUNCTION memories_check_dimensions() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    got  integer := vector_dims(NEW.embedding);
    want integer;
BEGIN
    SELECT dimensions INTO want FROM embedder_dimensions WHERE embedder = NEW.embedder;
    IF want IS NULL THEN
        INSERT INTO embedder_dimensions (embedder, dimensions) VALUES (NEW.embedder, got)
            ON CONFLICT (embedder) DO NOTHING;
        SELECT dimensions INTO want FROM embedder_dimensions WHERE embedder = NEW.embedder;
    END IF;
    IF got <> want THEN
        RAISE EXCEPTION 'embedding has % dimensions; embedder % stores % dimensions', got, NEW.embedder, want
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER memories_check_dimensions BEFORE INSERT OR UPDATE OF embedder, embedding ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_check_dimensions();
