#!/usr/bin/env python3
"""Make assets/link-order.txt from a callgrind run of the TUI.

usage: link-order.py CALLGRIND_OUT BINARY OUT [NOTE…]

The functions that ran (nonzero cost), in the order they first ran
(callgrind numbers functions as they first run), kept when the binary
defines them (`nm`), each once. The NOTE lines go in the header.
"""

import re
import subprocess
import sys


def main() -> None:
    path, binary, out = sys.argv[1:4]
    notes = sys.argv[4:]
    ident = re.compile(r"^\((\d+)\)(?: (.*))?$")
    names: dict[int, str] = {}
    cost: dict[int, int] = {}
    current = None
    after_calls = False

    def read(value: str):
        m = ident.match(value)
        if not m:
            return value
        i = int(m.group(1))
        if m.group(2) is not None:
            names[i] = m.group(2)
        return i

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("fn="):
                current = read(line[3:])
                after_calls = False
            elif line.startswith("cfn="):
                read(line[4:])
            elif line.startswith("calls="):
                after_calls = True
            elif line[0].isdigit() or line[0] in "+-*":
                if after_calls:
                    after_calls = False
                    continue
                parts = line.split()
                if len(parts) >= 2 and isinstance(current, int):
                    cost[current] = cost.get(current, 0) + int(parts[1])
    defined = {}
    nm = subprocess.run(["nm", "-S", binary], capture_output=True, text=True, check=True)
    for l in nm.stdout.splitlines():
        p = l.split()
        if len(p) == 4 and p[2] in "tTwW":
            defined[p[3]] = int(p[1], 16)
    kept: list[str] = []
    seen = set()
    for i in sorted(i for i, c in cost.items() if c > 0):
        name = names.get(i)
        if name is None:
            continue
        # callgrind marks a recursion level as NAME'2.
        name = name.split("'")[0]
        if name in defined and name not in seen:
            seen.add(name)
            kept.append(name)
    with open(out, "w") as f:
        f.write("# The functions the TUI runs as it starts, connects four servers and\n")
        f.write("# idles, in the order they first ran: the release link lays them out\n")
        f.write("# together (build.rs). Made by scripts/link-order.sh; do not edit.\n")
        for n in notes:
            f.write(f"# {n}\n")
        for name in kept:
            f.write(name + "\n")
    print(f"{len(kept)} functions, {sum(defined[n] for n in kept)} bytes of code")


if __name__ == "__main__":
    main()
