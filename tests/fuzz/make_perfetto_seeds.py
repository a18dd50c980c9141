"""Encodes the Perfetto fuzz seeds (tests/fuzz/seeds-perfetto/*.txtpb: packets in protobuf text format, blocks
split by lines of ---) into trace files with Debian's protoc and core/import/perfettotrace.proto, each packet
wrapped as a Trace's field 1. Usage: make_perfetto_seeds.py PROTO_DIR OUT_DIR SEED..."""
import gzip
import os
import subprocess
import sys


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


proto_dir, out_dir, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
for seed in seeds:
    trace = bytearray()
    for block in open(seed).read().split("\n---\n"):
        packet = subprocess.run(
            ["protoc", "-I", proto_dir, "--encode=kinetoscope.perfetto.TracePacket", "perfettotrace.proto"],
            input=block.encode(), capture_output=True, check=True).stdout
        trace += b"\x0a" + varint(len(packet)) + packet
    name = os.path.join(out_dir, os.path.basename(seed).replace(".txtpb", ""))
    open(name + ".pftrace", "wb").write(trace)
    open(name + ".pftrace.gz", "wb").write(gzip.compress(bytes(trace)))
