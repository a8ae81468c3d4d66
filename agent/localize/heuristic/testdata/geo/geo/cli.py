"""The geo command line: geo show, geo count."""

import argparse
import sys

from .manager import ShapeManager


def show_command(manager, out=sys.stdout):
    """Print a table of the shapes: their name, kind and area."""
    rows = [(getattr(s, "name", "?"), type(s).__name__, "%.2f" % s.area()) for s in manager.shapes]
    headers = ("Name", "Kind", "Area")
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    line = "  ".join("{:<%d}" % w for w in widths)
    print(line.format(*headers), file=out)
    for row in rows:
        print(line.format(*row), file=out)


def count_command(manager, out=sys.stdout):
    """Print how many shapes were read."""
    print(len(manager.shapes) + len(manager.polygons), file=out)


def load(paths):
    """Read shapes from files; warn about the ones that cannot be read."""
    manager = ShapeManager()
    for p in paths:
        try:
            with open(p) as f:
                for line in f:
                    manager.add_polygon([tuple(map(float, xy.split(","))) for xy in line.split()])
        except OSError:
            print("Note: some shape files could not be read and were skipped.", file=sys.stderr)
    return manager


def main(argv=None):
    parser = argparse.ArgumentParser(prog="geo")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("show", "count"):
        p = sub.add_parser(name)
        p.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    manager = load(args.files)
    {"show": show_command, "count": count_command}[args.command](manager)
