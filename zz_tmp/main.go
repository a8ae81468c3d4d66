package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/swe-adept/swe-adept/index"
)

func main() {
	ix, err := index.Build(context.Background(), os.Args[1], index.Options{NoCache: true})
	if err != nil {
		panic(err)
	}
	heads := map[string]int{}
	for _, f := range ix.Files() {
		for _, id := range f.Units {
			u, _ := ix.Unit(id)
			for _, c := range u.Unresolved {
				h := c.Name
				if i := strings.IndexByte(h, '.'); i >= 0 {
					h = h[:i] + "." + strings.SplitN(h[i+1:], ".", 2)[0]
				}
				heads[h]++
			}
		}
	}
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range heads {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	for _, x := range l[:min(40, len(l))] {
		fmt.Printf("%d %s\n", x.v, x.k)
	}
}
