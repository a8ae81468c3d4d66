// Command swe-adept is a terminal workbench in which two agents resolve an
// issue in a git repository while an engineer watches and steers. The
// commands live in package cli.
package main

import (
	"os"

	"github.com/swe-adept/swe-adept/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
