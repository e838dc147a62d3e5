package main

import (
	"flag"
	"fmt"
	"strings"
)

// Every flag of `citecheck serve` can also be set by an environment
// variable, CITECHECK_ and the flag's name in upper case with '_' for '-'
// (--max-in-flight: CITECHECK_MAX_IN_FLIGHT), as container platforms
// configure a service. A flag on the command line wins over its variable;
// an empty variable counts as unset. The mapping is derived from the flag
// set itself, so a new flag has its variable without a second list.

const envPrefix = "CITECHECK_"

// envName is the variable that sets the flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// applyEnv sets, after fs has parsed the command line, each flag the
// command line left unset from its variable (lookup is os.LookupEnv
// outside tests). A value the flag refuses is an error naming the
// variable, as a bad flag would be.
func applyEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	onCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { onCommandLine[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || onCommandLine[f.Name] {
			return
		}
		v, ok := lookup(envName(f.Name))
		if !ok || v == "" {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: %v", envName(f.Name), v, e)
		}
	})
	return err
}
