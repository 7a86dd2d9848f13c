-- 0012_memory_vectors: each memory holds vectors of several embedders side by side.
--
-- One vector column per memory made every embedder switch a flag day: the rows of the old
-- embedder were lexical-only until re-embedded. Vectors now live in memory_vectors, one row per
-- (memory, embedder), so the old embedder keeps answering while a new one converges (the
-- maintenance job reembed fills in the rows lacking a vector of the active embedder), and
-- switching back is instant. Searches and the write-time fold only ever compare vectors of one
-- embedder: the active one.
--
-- Each row carries its memory's scope, kind and archived state, kept in step by the triggers
-- below, so a nearest-neighbour query reads this table alone: each scope graph is a partial
-- HNSW index over (embedding::vector(N)) WHERE embedder = '<name>' AND scope = ... AND
-- scope_key = ... AND NOT ann_deferred, built by the host as before (pgstore/annindex.go).
CREATE TABLE memory_vectors (
    memory_id    uuid NOT NULL,
    embedder     text NOT NULL,
    scope        text NOT NULL,
    scope_key    text NOT NULL,
    kind         text NOT NULL,
    archived     boolean NOT NULL DEFAULT false,
    -- Untyped: each embedder has its own width (embedder_dimensions holds it to one).
    embedding    vector NOT NULL,
    -- Out of the scope's graph until the background indexer inserts it (see 0002).
    ann_deferred boolean NOT NULL DEFAULT false,
    -- Why the ANN index refused the row (see 0003); NULL for every healthy row.
    ann_error    text,
    created_at   timestamptz NOT NULL DEFAULT now()
);
-- Vectors inline (fast exact scans), wide dense vectors still allowed: see 0001.
ALTER TABLE memory_vectors ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE memory_vectors SET (toast_tuple_target = 8160);
-- Room on each page keeps the archive and kind updates the triggers make HOT: they touch no
-- indexed column, so they never re-insert the row into its graph.
ALTER TABLE memory_vectors SET (fillfactor = 90);

-- Existing vectors move over as they are. No graph exists on the new table yet, so no row is
-- deferred (a scope without a graph is scanned exactly; the host builds the graphs of large
-- scopes in the background at boot, and they take in every row), except the rows set aside
-- with an error, which stay out.
INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, archived, embedding, ann_deferred, ann_error, created_at)
SELECT id, embedder, scope, scope_key, kind, archived_at IS NOT NULL, embedding, ann_error IS NOT NULL, ann_error, created_at
FROM memories;

-- Keys, the foreign key and indexes come after the copy: built in one pass each, they cost a
-- fraction of maintaining them row by row.
ALTER TABLE memory_vectors ADD PRIMARY KEY (memory_id, embedder);
ALTER TABLE memory_vectors ADD FOREIGN KEY (memory_id) REFERENCES memories (id) ON DELETE CASCADE;
-- A scope's rows of one embedder: the exact scan of a scope without a graph, graph sizing,
-- and how many rows each embedder has (re-embed progress).
CREATE INDEX memory_vectors_scope ON memory_vectors (embedder, scope, scope_key);
-- The indexer's queue and the exact scan of rows not yet in their graph; empty when idle.
CREATE INDEX memory_vectors_deferred ON memory_vectors (embedder, scope, scope_key) WHERE ann_deferred;

-- The width guard of 0003, on the new table.
CREATE FUNCTION memory_vectors_check_dimensions() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER memory_vectors_check_dimensions BEFORE INSERT OR UPDATE OF embedder, embedding ON memory_vectors
    FOR EACH ROW EXECUTE FUNCTION memory_vectors_check_dimensions();

-- A vector embeds its memory's text: when the text changes, every vector of the old text goes,
-- whoever changes it (a fold, a document update, a maintenance job, hand-written SQL). The
-- writer stores the active embedder's vector of the new text after the update; the re-embed
-- job fills in the others.
CREATE FUNCTION memories_text_drops_vectors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_vectors WHERE memory_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER memories_text_drops_vectors AFTER UPDATE OF text ON memories
    FOR EACH ROW WHEN (OLD.text IS DISTINCT FROM NEW.text) EXECUTE FUNCTION memories_text_drops_vectors();

-- The copies of scope, kind and archived state follow the memory.
CREATE FUNCTION memories_vectors_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_vectors SET scope = NEW.scope, scope_key = NEW.scope_key, kind = NEW.kind,
        archived = NEW.archived_at IS NOT NULL
    WHERE memory_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER memories_vectors_follow AFTER UPDATE OF scope, scope_key, kind, archived_at ON memories
    FOR EACH ROW WHEN (OLD.scope IS DISTINCT FROM NEW.scope OR OLD.scope_key IS DISTINCT FROM NEW.scope_key
        OR OLD.kind IS DISTINCT FROM NEW.kind OR (OLD.archived_at IS NULL) <> (NEW.archived_at IS NULL))
    EXECUTE FUNCTION memories_vectors_follow();

-- The old column goes, with its guard, its deferral flags and every graph built over it
-- (dropping the column drops them). memories.embedder stays: the embedder the memory's text was
-- last written with.
DROP TRIGGER IF EXISTS memories_check_dimensions ON memories;
DROP FUNCTION IF EXISTS memories_check_dimensions();
DROP INDEX IF EXISTS memories_ann_deferred;
ALTER TABLE memories DROP COLUMN embedding, DROP COLUMN ann_deferred, DROP COLUMN ann_error;
