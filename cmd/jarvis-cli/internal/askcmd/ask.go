// Package askcmd implements `jarvis-cli ask`: one agent turn in the terminal,
// with tool events streamed as they happen.
package askcmd

import (
	"bufio"
	"context"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are the command's flags.
type Options struct {
	SessionID string
	Model     string
	KBOnly    bool
	// Continue asks the model to go on with the session's reply that was
	// cut off at the output limit (no question then).
	Continue bool
}

// New builds the ask command.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	opts := &Options{}
	cmd := &cobra.Command{
		Use:   `ask "question" | ask --session ID --continue`,
		Short: "Ask the agent a question from the terminal",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Continue != (len(args) == 0) {
				return errs.New(errs.Invalid, "ask", "give a question, or --session ID --continue without one")
			}
			cfg, err := load()
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			question := ""
			if len(args) == 1 {
				question = args[0]
			}
			return Run(ctx, io, cfg, getenv, opts, question)
		},
	}
	cmd.Flags().StringVar(&opts.SessionID, "session", "", "continue this session id")
	cmd.Flags().StringVar(&opts.Model, "model", "", "provider[:model] for this session")
	cmd.Flags().BoolVar(&opts.KBOnly, "kb-only", true, "answer only from the knowledge base")
	cmd.Flags().BoolVar(&opts.Continue, "continue", false, "go on with the session's reply that was cut off at the output limit or paused at the tool-call limit")
	return cmd
}

// Run performs one turn.
func Run(ctx context.Context, io *iostreams.IO, cfg *config.Config, getenv func(string) string, opts *Options, question string) error {
	if opts.Continue && opts.SessionID == "" {
		return errs.New(errs.Invalid, "ask", "--continue needs --session ID")
	}
	// A proposal is stored in the drafts tree and outlives this process:
	// say where it waits and how to answer it.
	ag, err := agent.New(cfg, agent.Options{Getenv: getenv, Review: func(_ context.Context, p *drafts.Proposal) error {
		fmt.Fprintf(io.Err, "· %s\n", ReviewHint(p))
		return nil
	}})
	if err != nil {
		return err
	}
	defer ag.Close()
	if ag.EngineErr != nil {
		fmt.Fprintf(io.Err, "· knowledge base unavailable (%v); answering with the drafts tools only\n", ag.EngineErr)
	}
	sessions, runner, confirms := ag.Sessions, ag.Runner, ag.Confirm
	var s *chat.Session
	if opts.SessionID != "" {
		if s, err = sessions.Load(opts.SessionID); err != nil {
			return err
		}
		if s.Pending != "" {
			fmt.Fprintf(io.Err, "· the last question of this session was never answered (Jarvis stopped mid-answer): %q\n", s.Pending)
		}
	} else {
		spec, err := llm.Resolve(cfg, firstNonEmpty(opts.Model, cfg.Chat.Provider))
		if err != nil {
			return err
		}
		s = sessions.New(spec, opts.KBOnly)
	}
	if opts.Model != "" && opts.SessionID != "" {
		spec, err := llm.ValidateSwitch(cfg, opts.Model, s.Private, getenv)
		if err != nil {
			return err
		}
		s.SwitchModel(spec)
	}
	if runner.Asks(s) && !io.Terminal {
		return errs.WithHint(errs.New(errs.Invalid, "ask", "ask before sending is on for this session, and there is no terminal to ask on (stdin is not a terminal)"),
			"run it in a terminal to review what would be sent, or set ledger.ask_before_sending = false (the window can switch it per session)")
	}
	var final chat.Event
	in := bufio.NewReader(io.In)
	// The answer streams to stderr as it is written; stdout gets only the
	// final reply (citations checked), so scripts can read it cleanly.
	streaming := false
	start := func(emit func(chat.Event)) (<-chan struct{}, error) { return runner.Start(ctx, s, question, emit) }
	if opts.Continue {
		start = func(emit func(chat.Event)) (<-chan struct{}, error) { return runner.Continue(ctx, s, emit) }
	}
	done, err := start(func(e chat.Event) {
		if e.Kind == chat.EventDelta {
			fmt.Fprint(io.Err, e.Text)
			streaming = true
			return
		}
		if streaming {
			fmt.Fprintln(io.Err)
			streaming = false
		}
		switch e.Kind {
		case chat.EventTool, chat.EventStatus:
			fmt.Fprintf(io.Err, "· %s\n", e.Text)
		case chat.EventConfirm:
			// The tool waits for this answer; nothing is deleted without a "y".
			token, _ := e.Data.(map[string]any)["token"].(string)
			fmt.Fprintf(io.Err, "? %s [y/N] ", e.Text)
			answer, _ := in.ReadString('\n') // EOF or a read error is no answer: "no"
			yes := strings.EqualFold(strings.TrimSpace(answer), "y") || strings.EqualFold(strings.TrimSpace(answer), "yes")
			if err := confirms.Answer(token, yes); err != nil {
				fmt.Fprintf(io.Err, "· %v\n", err)
			}
		case chat.EventReply:
			if data, _ := e.Data.(map[string]any); data["continuing"] == true {
				// The task goes on by itself (the status line after this
				// says so): this part of the answer is kept, on stdout too.
				printReply(io, e, data)
				fmt.Fprintln(io.Out)
				return
			}
			final = e
		case chat.EventReview:
			data, _ := e.Data.(map[string]any)
			token, _ := data["token"].(string)
			passages, _ := data["passages"].([]chat.Passage)
			if err := confirms.Decide(token, reviewOnTerminal(io, in, e.Text, passages)); err != nil {
				fmt.Fprintf(io.Err, "· %v\n", err)
			}
		default:
			final = e
		}
	})
	if err != nil {
		return err
	}
	select {
	case <-done:
	case <-ctx.Done():
		runner.Stop(s.ID)
		<-done
	}
	data, _ := final.Data.(map[string]any)
	switch {
	case final.Kind == chat.EventReply && data["refused"] == true:
		// Nothing on stdout: a refusal is no answer a script should read.
		fmt.Fprintf(io.Err, "· %s; any text shown above is not an answer and was not saved as one\nsession %s\n", data["notice"], s.ID)
		return errs.New(errs.LLM, "ask", "%s", data["notice"])
	case final.Kind == chat.EventReply:
		printReply(io, final, data)
		switch data["stop"] {
		case "length":
			fmt.Fprintf(io.Err, "· this answer was %s; `jarvis-cli ask --session %s --continue` asks the model to go on\n", chat.NoticeCutOff, s.ID)
		case chat.StopToolLimit:
			if chat.CanContinue(s) {
				fmt.Fprintf(io.Err, "· the task %s; `jarvis-cli ask --session %s --continue` goes on with it\n", chat.NoticeToolLimit, s.ID)
			}
		}
		fmt.Fprintf(io.Err, "session %s\n", s.ID)
		return nil
	case final.Kind == chat.EventStopped:
		return errs.New(errs.Cancelled, "ask", "stopped; nothing was saved")
	default:
		return errs.New(errs.LLM, "ask", "%s", final.Text)
	}
}

// printReply writes a reply and its sources to stdout.
func printReply(io *iostreams.IO, e chat.Event, data map[string]any) {
	fmt.Fprintln(io.Out, e.Text)
	if cites, ok := data["citations"].([]chat.Citation); ok && len(cites) > 0 {
		fmt.Fprintln(io.Out, "\nSources:")
		for _, c := range cites {
			fmt.Fprintf(io.Out, "  - %s%s\n", c.Source, pageSuffix(c.Page))
		}
	}
}

// ReviewHint tells the user where a proposal waits: nothing is written
// until they accept it in the window.
func ReviewHint(p *drafts.Proposal) string {
	return fmt.Sprintf("%d change(s) to %s (draft %s) saved for your review; nothing is written until you accept them: "+
		"open Jarvis, go to Drafts and pick it under \"Waiting for review\" to accept or reject each change, or discard it", len(p.Hunks), p.File, p.DraftID)
}

func pageSuffix(p int) string {
	if p > 0 {
		return fmt.Sprintf(" p.%d", p)
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
