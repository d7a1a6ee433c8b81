package cloudcfg_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/honmaster/masterserver/host/cloudcfg"
)

func Example() {
	upload, _ := cloudcfg.BuildArchive([]byte("SetSave \"cl_Rap2Enable\" \"false\" \"1\"\n" +
		"GameReBind Ability1 ActivateTool \"0\" button game \"Q\" \"INVALID\"\n" +
		"BindButton game F1 Cmd \"ToggleShop\" false\n"))

	cfg, err := cloudcfg.CheckArchive(upload, cloudcfg.DefaultLimits)
	if err != nil {
		fmt.Println("reject upload:", err)
		return
	}
	f, err := cloudcfg.Parse(cfg, cloudcfg.Strict)
	if err != nil {
		fmt.Println("reject settings:", err)
		return
	}
	f.WriteText(os.Stdout)
	// Output:
	// Settings (1)
	//   NAME           VALUE  FLAG
	//   cl_Rap2Enable  false  true
	//
	// Rebinds (1)
	//   NAME      COMMAND       ARGUMENT  KIND    CONTEXT  KEY1  KEY2
	//   Ability1  ActivateTool  0         button  game     Q     (unbound)
	//
	// Binds (1)
	//   CONTEXT  KEY  COMMAND  ARGUMENT    FLAG
	//   game     F1   Cmd      ToggleShop  false
	//
	// Unrecognised lines (0)
	//   (none)
}

// A host maps errors to client messages with errors.Is, never by their text.
func ExampleCheckArchive_errors() {
	for _, upload := range [][]byte{nil, []byte("hello")} {
		_, err := cloudcfg.CheckArchive(upload, cloudcfg.Limits{})
		switch {
		case errors.Is(err, cloudcfg.ErrNotZip):
			fmt.Println("settings upload is not a zip archive")
		case errors.Is(err, cloudcfg.ErrTooLarge):
			fmt.Println("settings upload is too large")
		case err != nil:
			fmt.Println("settings upload is unusable")
		}
	}
	// Output:
	// settings upload is not a zip archive
	// settings upload is not a zip archive
}

func ExampleParse_lineError() {
	_, err := cloudcfg.Parse([]byte("// settings\nSetSave \"a\" \"b\"\n"), cloudcfg.Strict)
	var le *cloudcfg.LineError
	if errors.As(err, &le) && errors.Is(err, cloudcfg.ErrSyntax) {
		fmt.Printf("line %d: %q\n", le.Line, le.Text)
	}
	// Output:
	// line 2: "SetSave \"a\" \"b\""
}
