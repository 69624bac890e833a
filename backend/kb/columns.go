package kb

import (
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
)

// column is one column of the chunks table and the Chunk field it holds:
// insert, select and scan are all built from chunkColumns, so a field is
// added in one place (the migration aside) and the lists cannot drift.
type column struct {
	name string
	// key: a metadata key users may filter, list and delete by.
	key bool
	// get is what an insert writes; set is where a scan reads into (row
	// holds the columns that need converting after the scan).
	get func(c *Chunk) any
	set func(c *Chunk, row *scanned) any
	// sql and parse read the column as text within packedSQL (parse
	// false: not a value this column holds).
	sql   string
	parse func(c *Chunk, v string) bool
}

// scanned holds the columns a scan converts: a nullable score, the x_
// fields as JSON.
type scanned struct {
	score sql.NullInt64
	extra string
}

func str(name string, key bool, field func(m *Metadata) *string) column {
	return text(name, key, func(c *Chunk) *string { return field(&c.Meta) })
}

func text(name string, key bool, field func(c *Chunk) *string) column {
	return column{name: name, key: key, sql: name,
		get:   func(c *Chunk) any { return *field(c) },
		set:   func(c *Chunk, _ *scanned) any { return field(c) },
		parse: func(c *Chunk, v string) bool { *field(c) = v; return true }}
}

func num(name string, field func(m *Metadata) *int) column {
	return column{name: name, sql: name,
		get: func(c *Chunk) any { return *field(&c.Meta) },
		set: func(c *Chunk, _ *scanned) any { return field(&c.Meta) },
		parse: func(c *Chunk, v string) bool {
			n, err := strconv.Atoi(v)
			*field(&c.Meta) = n
			return err == nil
		}}
}

// chunkColumns is the chunks table as Go sees it, in storage order.
var chunkColumns = []column{
	str("doc_type", true, func(m *Metadata) *string { return &m.DocType }),
	str("visibility", true, func(m *Metadata) *string { return &m.Visibility }),
	str("source", true, func(m *Metadata) *string { return &m.Source }),
	str("title", true, func(m *Metadata) *string { return &m.Title }),
	str("authors", true, func(m *Metadata) *string { return &m.Authors }),
	str("doi", true, func(m *Metadata) *string { return &m.DOI }),
	{name: "score",
		get: func(c *Chunk) any {
			if c.Meta.Score == nil {
				return nil
			}
			return *c.Meta.Score
		},
		set: func(_ *Chunk, row *scanned) any { return &row.score },
		sql: `COALESCE(score, '')`,
		parse: func(c *Chunk, v string) bool {
			if v == "" {
				return true
			}
			n, err := strconv.Atoi(v)
			c.Meta.Score = &n
			return err == nil
		}},
	str("track", true, func(m *Metadata) *string { return &m.Track }),
	str("storage_mode", true, func(m *Metadata) *string { return &m.StorageMode }),
	str("file_path", true, func(m *Metadata) *string { return &m.FilePath }),
	str("content_hash", false, func(m *Metadata) *string { return &m.ContentHash }),
	num("chunk_index", func(m *Metadata) *int { return &m.ChunkIndex }),
	str("section", true, func(m *Metadata) *string { return &m.Section }),
	str("modified_at", false, func(m *Metadata) *string { return &m.ModifiedAt }),
	num("meta_schema", func(m *Metadata) *int { return &m.MetaSchema }),
	str("date_added", false, func(m *Metadata) *string { return &m.DateAdded }),
	str("category", true, func(m *Metadata) *string { return &m.Category }),
	str("status", true, func(m *Metadata) *string { return &m.Status }),
	str("entity", true, func(m *Metadata) *string { return &m.Entity }),
	str("event_date", true, func(m *Metadata) *string { return &m.EventDate }),
	str("tags", true, func(m *Metadata) *string { return &m.Tags }),
	str("annotation_kind", true, func(m *Metadata) *string { return &m.AnnotationKind }),
	num("page", func(m *Metadata) *int { return &m.Page }),
	str("note_text", false, func(m *Metadata) *string { return &m.NoteText }),
	{name: "extra",
		get: func(c *Chunk) any {
			if c.Meta.Extra == nil {
				return "{}"
			}
			b, _ := json.Marshal(c.Meta.Extra) // map[string]string always marshals
			return string(b)
		},
		set: func(_ *Chunk, row *scanned) any { return &row.extra },
		sql: "extra",
		parse: func(c *Chunk, v string) bool {
			c.Meta.Extra = decodeExtra(v)
			return true
		}},
	text("content", false, func(c *Chunk) *string { return &c.Content }),
	text("embed_text", false, func(c *Chunk) *string { return &c.EmbedText }),
}

var (
	columnNames = func() []string {
		names := make([]string, len(chunkColumns))
		for i, c := range chunkColumns {
			names[i] = c.name
		}
		return names
	}()
	// insertSQL stores a chunk with its lexical text and revision.
	insertSQL = `INSERT INTO chunks (` + strings.Join(columnNames, ", ") + `, lex, rev) VALUES (` +
		placeholders(len(chunkColumns)+2) + `) RETURNING id`
	// selectCols reads what scanChunk scans.
	selectCols = `id, ` + strings.Join(columnNames, ", ")
	// packedSQL reads every column of selectCols but id as one string,
	// the values joined by metaSep (a NULL score as ''): the driver's cost
	// is per column, and a search's 25 hits read so take 40% less time.
	packedSQL = func() string {
		exprs := make([]string, len(chunkColumns))
		for i, c := range chunkColumns {
			exprs[i] = c.sql
		}
		return strings.Join(exprs, "||char(31)||")
	}()
	// metadataColumns are the keys users may filter, list or delete by.
	metadataColumns = func() []string {
		var keys []string
		for _, c := range chunkColumns {
			if c.key {
				keys = append(keys, c.name)
			}
		}
		return keys
	}()
)

// insertArgs are the values of chunkColumns for c, in order.
func insertArgs(c Chunk) []any {
	args := make([]any, len(chunkColumns))
	for i, col := range chunkColumns {
		args[i] = col.get(&c)
	}
	return args
}

// scanChunk scans selectCols, plus any extra trailing columns into extraCols.
func scanChunk(sc interface{ Scan(...any) error }, extraCols ...any) (Chunk, error) {
	var c Chunk
	var row scanned
	dest := make([]any, 0, 1+len(chunkColumns)+len(extraCols))
	dest = append(dest, &c.ID)
	for _, col := range chunkColumns {
		dest = append(dest, col.set(&c, &row))
	}
	if err := sc.Scan(append(dest, extraCols...)...); err != nil {
		return c, err
	}
	if row.score.Valid {
		n := int(row.score.Int64)
		c.Meta.Score = &n
	}
	c.Meta.Extra = decodeExtra(row.extra)
	return c, nil
}

// unpackChunk parses packedSQL's string for chunk id; false when a value
// held the separator itself or did not parse (the row is then scanned
// column by column).
func unpackChunk(id int64, packed string) (Chunk, bool) {
	c := Chunk{ID: id}
	last := len(chunkColumns) - 1
	for i, col := range chunkColumns {
		v, rest, found := strings.Cut(packed, metaSep)
		if found != (i < last) || !col.parse(&c, v) {
			return Chunk{}, false
		}
		packed = rest
	}
	return c, true
}
