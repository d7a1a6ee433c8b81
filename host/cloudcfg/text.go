package cloudcfg

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"
)

// WriteText writes a listing of f for operators: sections "Settings",
// "Rebinds", "Binds" and "Unrecognised lines", each with a count and aligned
// columns. Unbound rebind keys show as "(unbound)", empty values as "", and
// values holding spaces or unprintable characters are quoted Go-style, so
// nothing from the uploaded file can reach the terminal as a control
// sequence.
func (f *File) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)

	section := func(title string, n int, header string, row func(i int) []string) {
		if title != "Settings" {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s (%d)\n", title, n)
		if n == 0 {
			fmt.Fprintln(tw, "  (none)")
			return
		}
		fmt.Fprintf(tw, "  %s\n", header)
		for i := range n {
			fmt.Fprintf(tw, "  %s\n", strings.Join(row(i), "\t"))
		}
		// Flush between sections so each aligns on its own columns.
		tw.Flush()
	}

	section("Settings", len(f.Settings), "NAME\tVALUE\tFLAG", func(i int) []string {
		s := f.Settings[i]
		return []string{show(s.Name), show(s.Value), strconv.FormatBool(s.Flag)}
	})
	section("Rebinds", len(f.Rebinds), "NAME\tCOMMAND\tARGUMENT\tKIND\tCONTEXT\tKEY1\tKEY2", func(i int) []string {
		r := f.Rebinds[i]
		return []string{show(r.Name), show(r.Command), show(r.Argument), show(r.Kind), show(r.Context), showKey(r.Key1), showKey(r.Key2)}
	})
	section("Binds", len(f.Binds), "CONTEXT\tKEY\tCOMMAND\tARGUMENT\tFLAG", func(i int) []string {
		b := f.Binds[i]
		return []string{show(b.Context), showKey(b.Key), show(b.Command), show(b.Argument), strconv.FormatBool(b.Flag)}
	})
	section("Unrecognised lines", len(f.Unknown), "LINE\tTEXT\tPROBLEM", func(i int) []string {
		u := f.Unknown[i]
		return []string{strconv.Itoa(u.Number), showLine(u.Text), showLine(problem(u.Err))}
	})

	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}

// problem is the part of a parse error worth showing next to the line.
func problem(err error) string {
	var se *syntaxError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &se):
		return se.problem
	}
	return err.Error()
}

func showKey(k string) string {
	if strings.EqualFold(k, UnboundKey) {
		return "(unbound)"
	}
	return show(k)
}

// show renders a single value: quoted when empty or when it holds anything
// but printable non-space characters.
func show(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r == '"' || r == utf8.RuneError || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// showLine renders free text: spaces are fine, anything unprintable (tabs,
// control characters, invalid UTF-8) makes it quoted.
func showLine(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || (r != ' ' && !unicode.IsPrint(r)) {
			return strconv.Quote(s)
		}
	}
	return s
}
