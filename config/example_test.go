package config_test

import (
	"errors"
	"flag"
	"fmt"

	"github.com/honmaster/masterserver/config"
)

func ExampleFromArgs() {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	cfg, err := config.FromArgs(fs, []string{"--listen", ":9090", "--plugin", "guides=/opt/hon/guides"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := cfg.Patch("linux", "x86_64")
	fmt.Println(cfg.Server.Listen, cfg.Plugins["guides"].Path, cfg.Login.CookieLifetime, p.OS)
	// Output: :9090 /opt/hon/guides 24h lac
}

func ExampleConfig_Validate() {
	cfg := config.Default()
	cfg.Login.CookieLifetime = config.Duration{}
	cfg.Storage.DataDir = ""
	err := cfg.Validate()
	fmt.Println(errors.Is(err, config.ErrInvalid))
	for _, p := range config.Problems(err) {
		fmt.Println(p.Key)
	}
	// Output:
	// true
	// storage.data_dir
	// login.cookie_lifetime
}
