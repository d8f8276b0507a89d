import type { SqlDatabase } from '../../sdk/index.ts';

export const migrations = [`
CREATE TABLE documents (
  id TEXT PRIMARY KEY, filename TEXT NOT NULL, content_type TEXT NOT NULL, file_size INTEGER NOT NULL,
  created_at INTEGER NOT NULL, source TEXT NOT NULL, url TEXT, metadata TEXT NOT NULL, text TEXT NOT NULL,
  fragment_count INTEGER NOT NULL
);
CREATE INDEX documents_by_created ON documents (created_at);
CREATE TABLE fragments (
  id TEXT PRIMARY KEY, document_id TEXT NOT NULL, position INTEGER NOT NULL, text TEXT NOT NULL,
  created_at INTEGER NOT NULL, model TEXT NOT NULL, dimension INTEGER NOT NULL, embedding BLOB NOT NULL
);
CREATE INDEX fragments_by_document ON fragments (document_id, position);
CREATE INDEX fragments_by_model ON fragments (model);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`];

export interface DocumentRecord {
  id: string; filename: string; contentType: string; fileSize: number; createdAt: number;
  fragmentCount: number; source: string; url: string | null;
}
export interface NewDocument extends DocumentRecord { metadata: Record<string, unknown>; text: string }
export interface FragmentRecord { id: string; text: string; position: number; createdAt: number }
export interface NewFragment extends FragmentRecord { vector: Float32Array }
export interface FragmentContext { id: string; text: string; position: number; documentId: string; documentTitle: string }
export interface StoredVector { id: string; vector: Float32Array }

interface DocumentRow {
  id: string; filename: string; content_type: string; file_size: number; created_at: number;
  fragment_count: number; source: string; url: string | null; text?: string;
}

const DOCUMENT_COLUMNS = 'id, filename, content_type, file_size, created_at, fragment_count, source, url';
const toDocument = (r: DocumentRow): DocumentRecord => ({
  id: r.id, filename: r.filename, contentType: r.content_type, fileSize: r.file_size, createdAt: r.created_at,
  fragmentCount: r.fragment_count, source: r.source, url: r.url,
});

/** Float32 vectors are stored as their raw (little-endian) bytes. */
export const toBlob = (vector: Float32Array) => new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
// Copied, because a BLOB's bytes need not be 4-byte aligned for a Float32Array view.
export const fromBlob = (blob: Uint8Array) => new Float32Array(blob.slice().buffer);

export type KnowledgeStore = ReturnType<typeof createKnowledgeStore>;

/** Documents, their fragments and the fragments' vectors (with model id and dimension) in the plugin's database. */
export function createKnowledgeStore(db: SqlDatabase) {
  return {
    /** Inserts a document and all its fragments in one transaction: all or nothing. */
    async insert(document: NewDocument, fragments: NewFragment[], model: string): Promise<void> {
      await db.tx(async (tx) => {
        await tx.run(
          `INSERT INTO documents (${DOCUMENT_COLUMNS}, metadata, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [document.id, document.filename, document.contentType, document.fileSize, document.createdAt, fragments.length,
            document.source, document.url, JSON.stringify(document.metadata), document.text],
        );
        for (const f of fragments) {
          await tx.run(
            'INSERT INTO fragments (id, document_id, position, text, created_at, model, dimension, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [f.id, document.id, f.position, f.text, f.createdAt, model, f.vector.length, toBlob(f.vector)],
          );
        }
      });
    },

    /** Newest first, with the real total. */
    async list(limit: number, offset: number): Promise<{ documents: DocumentRecord[]; total: number }> {
      const rows = await db.all<DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`, [limit, offset]);
      const total = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM documents'))!.n;
      return { documents: rows.map(toDocument), total };
    },

    async get(id: string): Promise<(DocumentRecord & { text: string }) | undefined> {
      const row = await db.get<DocumentRow>(`SELECT ${DOCUMENT_COLUMNS}, text FROM documents WHERE id = ?`, [id]);
      return row && { ...toDocument(row), text: row.text! };
    },

    async exists(id: string): Promise<boolean> {
      return Boolean(await db.get('SELECT 1 FROM documents WHERE id = ?', [id]));
    },

    async fragments(documentId: string): Promise<FragmentRecord[]> {
      return db.all<FragmentRecord>('SELECT id, text, position, created_at AS createdAt FROM fragments WHERE document_id = ? ORDER BY position', [documentId]);
    },

    /** Deletes a document and its fragments; returns the fragment ids, or undefined when there was no such document. */
    async delete(id: string): Promise<string[] | undefined> {
      return db.tx(async (tx) => {
        if (!(await tx.get('SELECT 1 FROM documents WHERE id = ?', [id]))) return undefined;
        const ids = (await tx.all<{ id: string }>('SELECT id FROM fragments WHERE document_id = ?', [id])).map((r) => r.id);
        await tx.run('DELETE FROM fragments WHERE document_id = ?', [id]);
        await tx.run('DELETE FROM documents WHERE id = ?', [id]);
        return ids;
      });
    },

    /** Deletes every document and fragment in one transaction; returns the fragment ids and the document count. */
    async clear(): Promise<{ fragmentIds: string[]; documents: number }> {
      return db.tx(async (tx) => {
        const fragmentIds = (await tx.all<{ id: string }>('SELECT id FROM fragments')).map((r) => r.id);
        const { changes } = await tx.run('DELETE FROM documents');
        await tx.run('DELETE FROM fragments');
        return { fragmentIds, documents: changes };
      });
    },

    async counts(): Promise<{ documents: number; fragments: number }> {
      const row = await db.get<{ documents: number; fragments: number }>('SELECT (SELECT COUNT(*) FROM documents) AS documents, (SELECT COUNT(*) FROM fragments) AS fragments');
      return row!;
    },

    /** The fragments with these ids and their document's title (hits of a search). */
    async contexts(ids: string[]): Promise<Map<string, FragmentContext>> {
      if (!ids.length) return new Map();
      const rows = await db.all<FragmentContext>(
        `SELECT f.id, f.text, f.position, f.document_id AS documentId, d.filename AS documentTitle
         FROM fragments f JOIN documents d ON d.id = f.document_id WHERE f.id IN (${ids.map(() => '?').join(', ')})`,
        ids,
      );
      return new Map(rows.map((r) => [r.id, r]));
    },

    /** Every vector of one model, page by page (keyset on rowid), for building the in-memory index. */
    async *vectors(model: string, pageSize = 2000): AsyncGenerator<StoredVector[]> {
      for (let after = -1; ;) {
        const rows = await db.all<{ rowid: number; id: string; embedding: Uint8Array }>(
          'SELECT rowid, id, embedding FROM fragments WHERE model = ? AND rowid > ? ORDER BY rowid LIMIT ?', [model, after, pageSize]);
        if (!rows.length) return;
        yield rows.map((r) => ({ id: r.id, vector: fromBlob(r.embedding) }));
        after = rows[rows.length - 1]!.rowid;
      }
    },

    /** How many fragments carry a vector of another model than `model`. */
    async staleCount(model: string): Promise<number> {
      return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM fragments WHERE model != ?', [model]))!.n;
    },

    async staleBatch(model: string, limit: number): Promise<{ id: string; text: string }[]> {
      return db.all('SELECT id, text FROM fragments WHERE model != ? ORDER BY rowid LIMIT ?', [model, limit]);
    },

    async replaceVectors(vectors: StoredVector[], model: string): Promise<void> {
      await db.tx(async (tx) => {
        for (const { id, vector } of vectors) {
          await tx.run('UPDATE fragments SET model = ?, dimension = ?, embedding = ? WHERE id = ?', [model, vector.length, toBlob(vector), id]);
        }
      });
    },

    /** A value created once and kept (e.g. the agent id reported by stats). */
    async constant(key: string, create: () => string): Promise<string> {
      const row = await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]);
      if (row) return row.value;
      const value = create();
      await db.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, value]);
      return value;
    },
  };
}
