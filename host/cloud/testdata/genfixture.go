//go:build ignore

// genfixture writes host/cloud/testdata/v2: a data directory (its db
// subdirectory) written by a real server of schema version 2 from before
// the cloud archives moved into host/cloud's keyspace (commit 8323d7f),
// holding one account, "Keeper" (password "pw-Keeper"), enrolled, with a
// settings archive in the default bucket stored over HTTP. Its output is
// committed; TestV2DataDirectoryServesArchive opens a copy and retrieves
// the archive.
//
//	go run host/cloud/testdata/genfixture.go host/cloud/testdata/v2
package main

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/storage"
)

func main() {
	if cli.PluginMode(os.Args[1:]) {
		return
	}
	out := os.Args[1]
	tmp, err := os.MkdirTemp("", "fixture")
	must(err)
	defer os.RemoveAll(tmp)
	cfg := config.Default()
	cfg.Storage.DataDir = tmp
	cfg.Server.Listen = "127.0.0.1:0"
	cfg.Operator.Listen = "127.0.0.1:0"
	must(cfg.Validate())
	ctx := context.Background()
	rt, err := cli.Start(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), false, io.Discard)
	must(err)
	var so, se bytes.Buffer
	if code := cli.Main(ctx, []string{"account", "create", "--login", "Keeper", "--password", "pw-Keeper", "--data", tmp}, &so, &se); code != 0 {
		panic(se.String())
	}
	c := client.New("http://" + rt.Addr.String())
	s, err := c.Login(ctx, "Keeper", "pw-Keeper")
	must(err)
	r, err := c.PostMultipart(ctx, "/master/cloud/set-user-enrollment",
		url.Values{"cookie": {s.Cookie}, "enroll": {"1"}, "cloud_autoupload": {"1"}})
	must(err)
	fmt.Printf("enrollment: %s\n", r.Body)
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, err := zw.Create("cloud.cfg")
	must(err)
	_, err = f.Write([]byte("SetSave \"cg_fixture\" \"1\"\nBindImpulse game F1 \"Cmd\"\n"))
	must(err)
	must(zw.Close())
	r, err = c.PostMultipart(ctx, "/master/storage/store",
		url.Values{"cookie": {s.Cookie}, "bucket": {"hon-game-configs"}, "file_modify_time": {"2026-11-23 12:34:56"}},
		client.FilePart{Field: "cloud.zip", Filename: "cloud.zip", Data: zb.Bytes()})
	must(err)
	fmt.Printf("store: %s\n", r.Body)
	must(os.WriteFile(filepath.Join(filepath.Dir(out), "v2.zip"), zb.Bytes(), 0o644))
	c.HTTP.CloseIdleConnections()
	must(rt.Stop())
	db, err := storage.Open(filepath.Join(tmp, "db"), nil)
	must(err)
	must(os.RemoveAll(out))
	must(os.MkdirAll(out, 0o700))
	must(db.Checkpoint(filepath.Join(out, "db")))
	must(db.Close())
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
