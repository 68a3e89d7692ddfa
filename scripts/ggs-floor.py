#!/usr/bin/env python3
"""The floor for `spine ggs`: Python's json.loads over every line of a stream.

Write the stream BenchmarkGGSFilter runs on, then time this loop over it:

    go test ./ggs -run TestWriteStream -ggs.stream /tmp/ggs-stream.jsonl
    python3 scripts/ggs-floor.py /tmp/ggs-stream.jsonl

It prints the wall and CPU seconds of the loop alone (the file is read first), and MB/s.
"""
import json
import sys
import time


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: ggs-floor.py STREAM.jsonl")
    with open(sys.argv[1], "rb") as f:
        lines = f.readlines()
    size = sum(len(line) for line in lines)
    wall, cpu = time.perf_counter(), time.process_time()
    n = 0
    for line in lines:
        if line.strip():
            json.loads(line)
            n += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"json.loads: {n} messages, {size / 1e6:.1f} MB: {wall:.2f} s wall, {cpu:.2f} s CPU, {size / 1e6 / wall:.1f} MB/s")


if __name__ == "__main__":
    main()
