package config

import (
	"fmt"
	"strconv"
	"strings"
)

// AccessLog is server.access_log: which answered requests get an access
// line. Every failure (an outcome other than ok) gets one unless the log
// is off; Rate is the share of successful requests that get one too.
//
//	true, "all"   every request (Rate 1)
//	"errors"      failures only (Rate 0)
//	0.01          failures, and one successful request in 100
//	false, "off"  none
type AccessLog struct {
	Off  bool
	Rate float64 // 0 to 1
}

// UnmarshalText reads true, false, "all", "errors", "off" or a rate from 0
// to 1.
func (a *AccessLog) UnmarshalText(text []byte) error {
	switch s := strings.ToLower(strings.TrimSpace(string(text))); s {
	case "true", "all", "on":
		*a = AccessLog{Rate: 1}
		return nil
	case "false", "off":
		*a = AccessLog{Off: true}
		return nil
	case "errors":
		*a = AccessLog{}
		return nil
	default:
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || !(r >= 0 && r <= 1) {
			return fmt.Errorf(`invalid access log setting %q: want true, false, "errors" or the share of successful requests logged, from 0 to 1 (such as 0.01)`, text)
		}
		*a = AccessLog{Rate: r}
		return nil
	}
}

// MarshalText writes "all", "off", "errors" or the rate.
func (a AccessLog) MarshalText() ([]byte, error) {
	switch {
	case a.Off:
		return []byte("off"), nil
	case a.Rate >= 1:
		return []byte("all"), nil
	case a.Rate <= 0:
		return []byte("errors"), nil
	}
	return []byte(strconv.FormatFloat(a.Rate, 'g', -1, 64)), nil
}

func (a AccessLog) String() string {
	b, _ := a.MarshalText()
	return string(b)
}
