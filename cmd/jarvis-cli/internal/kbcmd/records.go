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
--since and --until bound the record's date (YYYY-MM-DD or YYYY-MM, inclusive).`,
		Args: cobra.NoArgs,
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, _ []string) error {
			return runRecords(ctx, io, k, o)
		}),
	}
	cmd.Flags().StringArrayVar(&o.where, "where", nil, whereHelp)
	cmd.Flags().StringVar(&o.since, "since", "", "earliest record date, YYYY-MM-DD or YYYY-MM")
	cmd.Flags().StringVar(&o.until, "until", "", "latest record date, YYYY-MM-DD or YYYY-MM")
	cmd.Flags().StringVar(&o.sort, "sort", "-date", "-date (newest first), date, changed or added")
	cmd.Flags().IntVarP(&o.limit, "limit", "n", 50, "at most this many records")
	cmd.Flags().BoolVar(&o.private, "private", true, "include records in private vault folders")
	return cmd
}

func runRecords(ctx context.Context, io *iostreams.IO, k *kbtools.KB, o *recordsOptions) error {
	const op = "kb.records"
	args, err := whereArgs(op, o.where)
	if err != nil {
		return err
	}
	sort, ok := recordSorts[o.sort]
	if !ok {
		return errs.WithHint(errs.New(errs.Invalid, op, "unknown --sort %q", o.sort), "use -date, date, changed or added")
	}
	args, opts := kbtools.RecordDefaults(args, kb.ListOptions{Limit: max(o.limit, 1), Sort: sort, DateFrom: strings.TrimSpace(o.since), DateTo: strings.TrimSpace(o.until)})
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
