package kbcmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// recordsOptions are `kb records`' flags.
type recordsOptions struct {
	where        []string
	since, until string
	sort         string
	limit        int
	private      bool
}

// recordSorts maps --sort to the store's orders.
var recordSorts = map[string]string{"-date": kb.ByDateDesc, "date": kb.ByDateAsc, "changed": kb.ByChanged, "added": "added"}

// newRecordsCmd is `jarvis-cli kb records`: frontmatter records by field
// and date, in date order — the query the agent's and the MCP server's
// query_records run.
func newRecordsCmd(io *iostreams.IO, withTools func(func(context.Context, *kbtools.KB, []string) error) func(*cobra.Command, []string) error) *cobra.Command {
	o := &recordsOptions{}
	cmd := &cobra.Command{
		Use:   "records",
		Short: "List records (notes with frontmatter) by field and date, in date order",
		Long: `List records — notes whose frontmatter gives them a category, status, entity,
date or other fields — filtered and in date order, one per line with its date.

  jarvis-cli kb records --where category=job_application --since 2026-03
  jarvis-cli kb records --where entity=Tanaka --sort date
  jarvis-cli kb records --where location=Berlin -n 10

--where takes category, status, entity, tag, collection, year, item_type or any
other frontmatter field;
--since and --until bound the record's date (YYYY-MM-DD or YYYY-MM, inclusive;
"March 2026" also reads), or another field's: --since deadline=2026-04; --sort
orders by the date (-date, newest first, is the default), changed, added, or a
field: --sort -deadline. A field's dates compare as days however each note wrote
them (deadline: March 10, 2026); a value that is no date ("TBD") is undated.`,
		Args: cobra.NoArgs,
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, _ []string) error {
			return runRecords(ctx, io, k, o)
		}),
	}
	cmd.Flags().StringArrayVar(&o.where, "where", nil, whereHelp)
	cmd.Flags().StringVar(&o.since, "since", "", "earliest record date, YYYY-MM-DD or YYYY-MM, or FIELD=DATE for another field")
	cmd.Flags().StringVar(&o.until, "until", "", "latest record date, YYYY-MM-DD or YYYY-MM, or FIELD=DATE for another field")
	cmd.Flags().StringVar(&o.sort, "sort", "-date", "-date (newest first), date, changed, added, or [-]FIELD")
	cmd.Flags().IntVarP(&o.limit, "limit", "n", 50, "at most this many records")
	cmd.Flags().BoolVar(&o.private, "private", true, "include records in private vault folders")
	return cmd
}

// recordOrder reads --sort, --since and --until: the record's date by
// default, or one frontmatter field they name (--sort -deadline, --since
// deadline=2026-04), which must be a field the records have.
func recordOrder(ctx context.Context, k *kbtools.KB, o *recordsOptions) (kb.ListOptions, error) {
	const op = "kb.records"
	opts := kb.ListOptions{Limit: max(o.limit, 1)}
	var fields []string
	bound := func(v string) string {
		if name, day, ok := strings.Cut(v, "="); ok {
			fields = append(fields, strings.TrimSpace(name))
			return strings.TrimSpace(day)
		}
		return strings.TrimSpace(v)
	}
	opts.DateFrom, opts.DateTo = bound(o.since), bound(o.until)
	if sort, ok := recordSorts[o.sort]; ok {
		opts.Sort = sort
	} else {
		name, desc := strings.CutPrefix(strings.TrimSpace(o.sort), "-")
		fields = append(fields, name)
		opts.Sort = kb.ByDateAsc
		if desc {
			opts.Sort = kb.ByDateDesc
		}
	}
	for _, f := range fields {
		if f == "date" {
			continue // the record's own date
		}
		key := kbtools.FieldKey(f)
		if opts.Field != "" && opts.Field != key {
			return opts, errs.WithHint(errs.New(errs.Invalid, op, "--sort, --since and --until name different fields (%s, %s)", opts.Field, key), "order and bound by one field at a time")
		}
		opts.Field = key
	}
	if opts.Field != "" {
		keys, err := k.Store.KeyCounts(ctx)
		if err != nil {
			return opts, err
		}
		if keys[opts.Field] == 0 {
			return opts, errs.WithHint(errs.New(errs.Invalid, op, "unknown --sort or field %q: no record has it", strings.TrimPrefix(opts.Field, "x_")),
				"use -date, date, changed or added, or a frontmatter field the records have (jarvis-cli kb schema lists them)")
		}
	}
	return opts, nil
}

func runRecords(ctx context.Context, io *iostreams.IO, k *kbtools.KB, o *recordsOptions) error {
	const op = "kb.records"
	args, err := whereArgs(op, o.where)
	if err != nil {
		return err
	}
	opts, err := recordOrder(ctx, k, o)
	if err != nil {
		return err
	}
	args, opts = kbtools.RecordDefaults(args, opts)
	f, err := args.Filter(op)
	if err != nil {
		return err
	}
	docs, err := k.Query(ctx, person(o.private), f, opts)
	if err != nil {
		return err
	}
	for _, d := range docs {
		fmt.Fprintln(io.Out, kbtools.RecordLine(d))
	}
	fmt.Fprintf(io.Err, "%d records\n", len(docs))
	return nil
}

// whereArgs reads --where FIELD=VALUE flags: category, status, entity,
// tag, a Zotero collection, year (2021, 2019-2021) or item_type, or any
// other frontmatter field.
func whereArgs(op string, where []string) (kbtools.FilterArgs, error) {
	args := kbtools.FilterArgs{Fields: map[string]string{}}
	for _, w := range where {
		if field, text, ok := strings.Cut(w, "~"); ok && !strings.Contains(field, "=") {
			if field, text = strings.TrimSpace(field), strings.TrimSpace(text); field == "" || text == "" {
				return args, errs.WithHint(errs.New(errs.Invalid, op, "--where %q is not FIELD~TEXT", w), "e.g. --where entity~tanaka")
			}
			if args.Contains == nil {
				args.Contains = map[string]string{}
			}
			args.Contains[field] = text
			continue
		}
		field, value, ok := strings.Cut(w, "=")
		field, value = strings.TrimSpace(field), strings.TrimSpace(value)
		if !ok || field == "" || value == "" {
			return args, errs.WithHint(errs.New(errs.Invalid, op, "--where %q is not FIELD=VALUE", w), "e.g. --where category=meeting, --where year=2019-2021 or --where entity~tanaka")
		}
		switch field {
		case "category":
			args.Category = value
		case "status":
			args.Status = value
		case "entity":
			args.Entity = value
		case "tag", "tags":
			args.Tags = append(args.Tags, value)
		case "collection":
			args.Collection = value
		case "year":
			args.Year = value
		case "item_type", "type":
			args.ItemType = value
		default:
			args.Fields["x_"+strings.TrimPrefix(field, "x_")] = value
		}
	}
	return args, nil
}

// whereFilter is the store filter --where flags name.
func whereFilter(op string, where []string) (kb.Filter, error) {
	args, err := whereArgs(op, where)
	if err != nil {
		return kb.Filter{}, err
	}
	return args.Filter(op)
}

// whereHelp is the --where flag's help, the same wherever it appears.
const whereHelp = "FIELD=VALUE, repeatable: category, status, entity, tag, collection (Zotero, with the collections under it), year (2021 or 2019-2021), item_type, or any frontmatter field; FIELD~TEXT: the field contains TEXT (case aside)"
