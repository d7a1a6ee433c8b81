package guides

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// WriteGuideTable writes guides for an operator (honmaster guides list): one row
// per guide in gid order with its flags, imported and players' counts, the
// rating the list shows, author and whole name. Author and name are quoted:
// they may hold tabs and line breaks (see validate), which would otherwise
// break the table or overwrite a line of the operator's terminal.
func WriteGuideTable(w io.Writer, gs []Guide, t *Tally) error {
	gs = slices.Clone(gs)
	slices.SortFunc(gs, func(a, b Guide) int { return int(a.Gid) - int(b.Gid) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GID\tHERO\tPREMIUM\tHIDDEN\tUP\tDOWN\tIMPORTED\tRATING\tAUTHOR\tNAME")
	for i := range gs {
		g := &gs[i]
		c := t.Counts(g)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%d/%d\t%s\t%q\t%q\n", g.Gid, g.Hero, pick(g.Premium, "yes", "-"),
			pick(g.Hidden, "yes", "-"), c.Up, c.Down, g.Up, g.Down, FormatRating(c), g.AuthorName, g.Name)
	}
	return tw.Flush()
}
