// Command protogen regenerates the Go code of every .proto file of the
// repository. The generated code is committed (building needs no protoc),
// so run it after editing or adding a .proto file, from anywhere in the
// module:
//
//	go run ./host/internal/protogen
//
// (or go generate ./host/internal/protogen). Nothing lists the files: every
// .proto under the module root is found, grouped by its directory and its
// go_package option, and generated into the go_package's directory (a file
// with option go_package = "<module>/host/guides/internal/guidespb" goes to
// host/guides/internal/guidespb). A file that declares a service gets gRPC
// code too. So a new area's .proto needs no edit anywhere else; the test of
// this package fails while any committed file is stale.
//
// The tools are pinned, because their versions are written into every
// generated file: protoc from Debian's protobuf-compiler, protoc-gen-go and
// protoc-gen-go-grpc installed with go install (see pins). They are looked
// up on PATH and in $(go env GOPATH)/bin. One command installs those
// missing or at another version, and generates nothing:
//
//	go run ./host/internal/protogen -install [-bin DIR]
//
// (protoc through apt-get, as root or with sudo; the generators with go
// install, into DIR or $(go env GOPATH)/bin). CI runs it too (.ci/run).
package main

//go:generate go run .

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	installOnly := flag.Bool("install", false, "install the pinned protoc and generators that are missing or at another version, then exit")
	bin := flag.String("bin", "", "with -install: the directory go install puts the generators in (default: $(go env GOPATH)/bin)")
	flag.Parse()
	var err error
	if *installOnly {
		if *bin == "" {
			os.Setenv("PATH", toolPath())
		}
		err = install(*bin, os.Stdout)
	} else {
		os.Setenv("PATH", toolPath())
		var root string
		root, err = moduleRoot()
		if err == nil {
			err = generateAll(root, root)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protogen:", err)
		os.Exit(1)
	}
}

// generateAll finds every group under root and generates it into outRoot
// (root itself, or another directory to compare with the committed code).
func generateAll(root, outRoot string) error {
	if err := checkTools(); err != nil {
		return err
	}
	groups, err := findGroups(root)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err := g.generate(root, outRoot); err != nil {
			return err
		}
	}
	return nil
}
