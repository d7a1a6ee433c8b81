package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/honmaster/masterserver/host/cluster"
)

// runCluster runs "cluster certs": it makes the private CA and the node
// certificates of the cluster port's mutual TLS (docs/cluster.md).
func runCluster(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		clusterUsage(stdout, nil)
		if len(args) == 0 {
			return usageError("cluster needs a subcommand: certs")
		}
		return flag.ErrHelp
	}
	if args[0] != "certs" {
		return usageError("unknown command \"cluster %s\"", args[0])
	}
	fs := newFlags("cluster certs", stderr)
	out := fs.String("out", "", "directory for the files (made 0700 if absent); a CA already there signs the new nodes")
	list := fs.String("nodes", "", "the nodes: NAME=ADDRESS[+ADDRESS...],... (ADDRESS: what the others dial, an IP address or host name)")
	if err := parse(fs, args[1:]); errors.Is(err, flag.ErrHelp) {
		clusterUsage(stdout, fs)
		return flag.ErrHelp
	} else if err != nil {
		return err
	}
	if *out == "" || *list == "" {
		return usageError("give --out DIR and --nodes NAME=ADDRESS,...")
	}
	nodes, err := cluster.ParseCertNodes(*list)
	if err != nil {
		return usageError("--nodes: %s", err.Error())
	}
	written, err := cluster.MakeCerts(*out, nodes)
	for _, f := range written {
		fmt.Fprintf(stdout, "wrote %s\n", f)
	}
	if err != nil {
		return &opError{cause: err, msg: "cluster certs: " + unwrapPath(err)}
	}
	fmt.Fprintf(stdout, "\nCopy to each node NAME: %s, NAME.pem and NAME-key.pem (keep the key owner-only), and set\n"+
		"  [cluster]\n  tls_ca = \".../%s\"\n  tls_cert = \".../NAME.pem\"\n  tls_key = \".../NAME-key.pem\"\n"+
		"Keep %s off the nodes: whoever holds it can make node certificates.\n", cluster.CAFile, cluster.CAFile, cluster.CAKeyFile)
	return nil
}

func clusterUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s cluster certs --out DIR --nodes NAME=ADDRESS[+ADDRESS...],...\n\n", Name)
	fmt.Fprintln(w, "Makes the certificates of the cluster port's mutual TLS: a private CA (ca.pem, ca-key.pem) and,")
	fmt.Fprintln(w, "for each node, NAME.pem and NAME-key.pem (ECDSA P-256, valid 10 years and never past the CA, keys written 0600),")
	fmt.Fprintln(w, "naming NAME and each ADDRESS the other nodes dial it at (its cluster.advertise, else listen).")
	fmt.Fprintln(w, "Run it again with the same --out to add nodes under the same CA; no file is overwritten.")
	fmt.Fprintln(w, "See docs/cluster.md.")
	if fs != nil {
		fmt.Fprintln(w, "\nflags:")
		printFlags(w, fs)
	}
}
