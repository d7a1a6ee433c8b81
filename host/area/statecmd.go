package area

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// AccountCommand is an operator command naming one account, and taking
// no other flag: "honmaster <name> --login L". The host declares --login,
// refuses a missing one (exit status 2) and one naming no account (exit
// status 1, "no account \"L\""), and calls run with the account's id;
// help is the command's paragraph ("the account's flips, wins and
// streaks"):
//
//	area.AccountCommand("daily reset", "forget the account's streak",
//		func(ctx context.Context, env area.CommandEnv, login string, id storage.AccountID, out io.Writer) error { ... })
func AccountCommand(name, help string, run func(ctx context.Context, env CommandEnv, login string, id storage.AccountID, out io.Writer) error) Command {
	return Command{Name: name, Usage: "--login L (" + help + ")", Flags: func(fs *flag.FlagSet) CommandRequest {
		r := &accountRequest{run: run}
		r.Flag(fs)
		return r
	}}
}

type accountRequest struct {
	LoginFlag
	run func(ctx context.Context, env CommandEnv, login string, id storage.AccountID, out io.Writer) error
}

func (r *accountRequest) Run(ctx context.Context, env CommandEnv, out io.Writer) error {
	id, err := r.Account(env)
	if err != nil {
		return err
	}
	return r.run(ctx, env, r.Login, id, out)
}

// StateCommand is "honmaster <area> show --login L": it prints the
// account's state of the area as the contract declares it (st), whichever
// plugin, bundled or external, kept it. format words it (nil: the
// contract's message on one line, each field by its .proto name in
// declaration order, "fay: streak 2, best_streak 2, flips 2, wins 2");
// help is the command's paragraph ("": "the account's <area> state").
func StateCommand[S any](st *sdk.State[S], help string, format func(login string, s S) string) Command {
	if help == "" {
		help = "the account's " + string(st.Area()) + " state"
	}
	return AccountCommand(string(st.Area())+" show", help, func(_ context.Context, env CommandEnv, login string, id storage.AccountID, out io.Writer) error {
		b, err := env.Sys.DB().PluginState(id, string(st.Area()))
		if err != nil {
			return err
		}
		s, err := st.Decode(b)
		if err != nil {
			return &OperatorError{Msg: fmt.Sprintf("the %s state of %q cannot be read: %v", st.Area(), login, err), Cause: err}
		}
		if format != nil {
			_, err = fmt.Fprintln(out, format(login, s))
			return err
		}
		m, err := st.Message(b)
		if err != nil {
			return err
		}
		if m == nil { // a codec without a message: the Go value
			_, err = fmt.Fprintf(out, "%s: %+v\n", login, s)
			return err
		}
		_, err = fmt.Fprintf(out, "%s: %s\n", login, FormatMessage(m))
		return err
	})
}

// FormatMessage is m on one line, every field by its .proto name in
// declaration order, a zero value too ("streak 2, best_streak 0"), except
// a field with presence that is not set (a message, a member of a oneof,
// an optional field); a nested message
// in braces, a list in brackets, a map's entries sorted by key, a string
// quoted, bytes in hex, an enum by its name. The form is stable: it
// depends on m's fields and values only.
func FormatMessage(m proto.Message) string {
	return formatFields(m.ProtoReflect())
}

func formatFields(r protoreflect.Message) string {
	fds := r.Descriptor().Fields()
	parts := make([]string, 0, fds.Len())
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.HasPresence() && !r.Has(fd) { // an unset message, oneof member or optional field
			continue
		}
		parts = append(parts, string(fd.Name())+" "+formatField(fd, r.Get(fd)))
	}
	return strings.Join(parts, ", ")
}

func formatField(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch {
	case fd.IsList():
		l := v.List()
		items := make([]string, l.Len())
		for i := range l.Len() {
			items[i] = formatScalar(fd, l.Get(i))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case fd.IsMap():
		var items []string
		v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			items = append(items, formatScalar(fd.MapKey(), k.Value())+": "+formatScalar(fd.MapValue(), v))
			return true
		})
		slices.Sort(items)
		return "{" + strings.Join(items, ", ") + "}"
	}
	return formatScalar(fd, v)
}

func formatScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "{" + formatFields(v.Message()) + "}"
	case protoreflect.StringKind:
		return fmt.Sprintf("%q", v.String())
	case protoreflect.BytesKind:
		return fmt.Sprintf("%x", v.Bytes())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return fmt.Sprint(int32(v.Enum()))
	}
	return fmt.Sprint(v.Interface())
}
