package main

import (
	"strings"

	"github.com/citecheck/citecheck/server"
)

// originList is --cors-origin: repeatable, and each value may hold several
// origins separated by commas (which no origin contains), so that one
// environment variable, CITECHECK_CORS_ORIGIN, can carry the whole list.
type originList []string

func (o *originList) String() string { return strings.Join(*o, ",") }

func (o *originList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if err := server.CheckOrigin(s); err != nil {
			return err
		}
		*o = append(*o, s)
	}
	return nil
}
