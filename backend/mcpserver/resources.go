package mcpserver

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
)

// uriPrefix starts every document's resource URI.
const uriPrefix = "jarvis://doc/"

// ResourceURI is a document's resource URI: its source id, escaped except
// for slashes, so a note reads jarvis://doc/projects/plan.md.
func ResourceURI(source string) string {
	return uriPrefix + strings.ReplaceAll(url.PathEscape(source), "%2F", "/")
}

// sourceOf is the source id a resource URI names.
func sourceOf(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, uriPrefix)
	if !ok || rest == "" {
		return "", false
	}
	src, err := url.PathUnescape(rest)
	return src, err == nil
}

// maxListedResources caps resources/list; search finds the rest.
const maxListedResources = 200

func (c *conn) addResources(srv *mcp.Server) {
	if c.kb == nil {
		return
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "document", Title: "A note or paper", URITemplate: uriPrefix + "{+source}", MIMEType: "text/markdown",
		Description: "A public note (by its vault path) or paper (by its source id) from the user's knowledge base, as search results name it."}, c.readResource)
	srv.AddReceivingMiddleware(c.listResources)
}

// resourceCaller reads resources: public material only, whatever
// allow_private says, because a client may attach a resource to any
// conversation.
func resourceCaller(ctx context.Context) kbtools.Caller {
	return kbtools.Caller{Cloud: true, Who: "mcp", Ledger: callOf(ctx)}
}

func (c *conn) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	src, ok := sourceOf(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	text, err := c.documentText(ctx, src)
	if errs.Is(err, errs.NotFound) || errs.Is(err, errs.Invalid) {
		return nil, mcp.ResourceNotFoundError(uri) // a private document is a missing one
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: c.redact(text)}}}, nil
}

// documentText is a public document's text: a vault note as written, any
// other document its stored text in reading order.
func (c *conn) documentText(ctx context.Context, src string) (string, error) {
	call := resourceCaller(ctx)
	// A vault note is read as written; anything else (a paper, a chat, a
	// PDF added from disk and cited by its path) from the store.
	if kb.DocRef(src).IsSource() || !strings.EqualFold(filepath.Ext(src), ".md") {
		chunks, err := c.kb.FindDocument(ctx, call, "resources/read", src)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		if t := chunks[0].Meta.Title; t != "" {
			b.WriteString("# " + t + "\n\n")
		}
		for _, ch := range chunks {
			if ch.Meta.AnnotationKind != "" {
				b.WriteString("> (" + ch.Meta.AnnotationKind + ") ")
			}
			b.WriteString(ch.Content + "\n\n")
		}
		call.Ledger.Add(kbtools.CitationOf(chunks[0]))
		return strings.TrimSpace(b.String()), nil
	}
	n, err := c.kb.ReadFile(ctx, call, src)
	if err != nil {
		return "", err
	}
	return n.Text, nil
}

// listResources answers resources/list with the public documents changed
// most recently: the store changes under a running server, so the list is
// read at each request, not registered once.
func (c *conn) listResources(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		docs, err := c.kb.Query(ctx, resourceCaller(ctx), kb.Filter{}, kb.ListOptions{Limit: maxListedResources, Sort: kb.ByChanged})
		if err != nil {
			return nil, err
		}
		out := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
		rec := callOf(ctx)
		for _, d := range docs {
			src := kbtools.SummaryCiteName(d)
			rec.Add(kbtools.Citation{Source: src, Title: d.Title})
			title := c.redact(d.Title)
			out.Resources = append(out.Resources, &mcp.Resource{URI: ResourceURI(src), Name: src, Title: title, MIMEType: "text/markdown",
				Description: d.DocType})
		}
		return out, nil
	}
}
