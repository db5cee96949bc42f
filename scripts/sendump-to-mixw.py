#!/usr/bin/env python3
"""PocketSphinx's quantised mixture weights (sendump) -> a Sphinx-III mixture_weights file, which sphinxtrain's bw
needs to adapt the model (as sphinxtrain's python/cmusphinx/sendump.py does; that one is Python 2).
Usage: sendump-to-mixw.py SENDUMP MIXTURE_WEIGHTS"""
import struct, sys
import numpy as np


def main(src, dst):
    f = open(src, "rb")
    fmt = ["<I"]

    def count():
        n = struct.unpack(fmt[0], f.read(4))[0]
        if n > 65536:   # big-endian file
            fmt[0] = ">I"
            n = struct.unpack(">I", struct.pack("<I", n))[0]
        return n

    def readstr():
        n = count()
        return None if n == 0 else f.read(n)[:-1].decode()

    readstr()  # title
    hdr = {}
    while (h := readstr()) is not None:
        k, *v = h.split()
        if v and v[0].isdigit(): hdr[k] = int(v[0])
    mixture_count = hdr.get("mixture_count", 0); model_count = hdr.get("model_count", 0)
    shift = hdr.get("mixw_shift", 10); features = hdr.get("feature_count", 1)
    if hdr.get("cluster_count", 0) == 0:
        model_count = count(); mixture_count = count()
    print(f"senones {mixture_count}, densities {model_count}, features {features}")
    opdf = np.empty((mixture_count, features, model_count))
    for i in range(features):
        for j in range(model_count):
            q = np.frombuffer(f.read(mixture_count), dtype=np.uint8).astype(np.int64) << shift
            opdf[:, i, j] = np.power(1.0001, -q.astype(np.float64))
    # renormalise each mixture (quantisation leaves them a little off)
    opdf /= opdf.sum(axis=2, keepdims=True)
    with open(dst, "wb") as o:
        head = b"s3\nversion 1.0\n"
        pad = (len(head) + len(b"endhdr\n")) & 3
        o.write(head + (b" " * (4 - pad) if pad else b"") + b"endhdr\n")
        o.write(struct.pack("=i", 0x11223344))
        d1, d2, d3 = opdf.shape
        o.write(struct.pack("=IIII", d1, d2, d3, d1 * d2 * d3))
        opdf.astype("<f4").tofile(o)


main(sys.argv[1], sys.argv[2])
