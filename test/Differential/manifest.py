"""The differential corpus: every case that runs on the H200 and in the
emulator (docs/Differential.md).

A case is a dict:
  name     unique; names the captured outputs h200/<name>.<buffer>.bin
  ptx      the PTX file (beside this file), compiled from the .cu of the
           same stem by regen_ptx.sh
  kernel   the .entry
  grid, block, cluster, smem   the launch
  args     nvfp4-run --arg SPECs; '{in:NAME}' stands for a generated input
           file (inputs.py), '{out:NAME}' for a captured output buffer
  bufs     extra --buf SPECs (tensors under tensor maps), same placeholders
  outputs  {buffer: comparison}; a comparison is 'bits' (bit for bit, the
           default for everything), or 'ops:KERNEL:N:INPUTS' (element-wise
           kernels: out[k * N + i] for the k-th operation of KERNEL, named
           from the .cu source, each compared bit for bit unless
           tolerances.py lists it as approximate)
"""

ELEM_BLOCK = 256

# Element-wise kernels: (case, ptx, kernel, input set, n, words per element
# beyond the results (scratch), init of out).
ELEMENTWISE = [
    ("f32_exact", "scalar", "f32_exact", "f32", 1024),
    ("f32_approx", "scalar", "f32_approx", "f32", 1024),
    ("f64_ops", "scalar", "f64_ops", "f64", 1024),
    ("f64_approx", "scalar", "f64_approx", "f64", 1024),
    ("half_ops", "scalar", "half_ops", "half", 1024),
    ("half_approx", "scalar", "half_approx", "half", 1024),
    ("cvt_f32", "scalar", "cvt_f32", "cvt", 1024),
    ("cvt_pack", "scalar", "cvt_pack", "half", 1024),
    ("int_ops", "scalar", "int_ops", "i32", 1024),
    ("int64_ops", "scalar", "int64_ops", "i64", 512),
    ("warp_full", "warp", "warp_full", "warp", 1024),
    ("warp_partial", "warp", "warp_partial", "warp", 1024),
    ("atom_own", "warp", "atom_own", "atom", 256),
]

# Kernels whose ops write out[k * n + i] with a scratch area after them.
SCRATCH_WORDS = {"atom_own": (64, 16)}  # (result slots, scratch words per element)


def elementwise_cases(op_count):
    cases = []
    for name, ptx, kernel, inputs, n in ELEMENTWISE:
        words = op_count(ptx, kernel)
        if kernel in SCRATCH_WORDS:
            slots, scratch = SCRATCH_WORDS[kernel]
            assert words <= slots, kernel
            words = slots + scratch
        init = "poison" if kernel == "warp_partial" else "zero"
        cases.append(dict(
            name=name, ptx=ptx + ".ptx", kernel=kernel,
            grid=n // ELEM_BLOCK, block=ELEM_BLOCK, cluster=1, smem=0,
            args=["buf:a:%d:file={in:%s.a}" % (n * width(inputs), inputs),
                  "buf:b:%d:file={in:%s.b}" % (n * width(inputs), inputs),
                  "buf:c:%d:file={in:%s.c}" % (n * 4 if inputs == "i64" else n * width(inputs), inputs),
                  "buf:out:%d:%s:out={out:out}" % (words * n * 4, init),
                  "i32:%d" % n],
            bufs=[], inputs=(inputs, n),
            outputs={"out": "ops:%s:%s:%d" % (ptx, kernel, n)}))
    return cases


def width(inputs):
    return 8 if inputs in ("f64", "i64") else 4


# TMA tensor loads. Element types with their seed fill, tensors of rank
# 1..5 whose rows are not a power of two (272 bytes), boxes whose inner
# extent is the swizzle span (or 16/32 bytes less wide), coordinates in
# bounds, negative, past the end and entirely outside; OOB fill zero and
# NaN.
DTYPES = {"u8": (1, "u8"), "bf16": (2, "bf16"), "f16": (2, "f16"),
          "f32": (4, "f32"), "f64": (8, "i32")}
SHAPES = {1: [1088], 2: [0, 40], 3: [0, 6, 5], 4: [0, 4, 3, 3], 5: [0, 3, 2, 2, 3]}
OUTER_BOX = {1: [], 2: [24], 3: [4, 3], 4: [3, 2, 2], 5: [2, 2, 2, 2]}


def tma_case(idx, rank, dtype, swizzle, inner_bytes, coords, oob="zero"):
    esize, fill = DTYPES[dtype]
    row_bytes = 272 if rank > 1 else 1088
    dims = [row_bytes // esize] + SHAPES[rank][1:]
    strides = []
    acc = row_bytes
    for d in dims[1:]:
        strides.append(acc)
        acc *= d
    total = acc
    box = [inner_bytes // esize] + OUTER_BOX[rank]
    nbox = esize
    for b in box:
        nbox *= b
    cs = list(coords) + [0] * (5 - len(coords))
    name = "tma_%dd_%s_%s_b%d_%s%s" % (rank, dtype, swizzle, inner_bytes,
                                        "_".join(str(c).replace("-", "m") for c in coords),
                                        "_nan" if oob == "nan" else "")
    tmap = "tmap:g:dtype=%s:dims=%s:strides=%s:box=%s:swizzle=%s:oob=%s" % (
        dtype, ",".join(map(str, dims)), ",".join(map(str, strides)) or "",
        ",".join(map(str, box)), swizzle, oob)
    if rank == 1:
        tmap = tmap.replace(":strides=:", ":")
    return dict(
        name=name, ptx="async.ptx", kernel="tma_load_%dd" % rank,
        grid=1, block=128, cluster=1, smem=0,
        bufs=["g:%d:seed=%d:%s" % (total, 100 + idx, fill)],
        args=[tmap, "buf:tile:%d:poison:out={out:tile}" % nbox]
        + ["i32:%d" % c for c in cs] + ["u32:%d" % nbox],
        outputs={"tile": "bits"})


def tma_cases():
    out = []
    spans = {"none": 64, "32B": 32, "64B": 64, "128B": 128}
    i = 0
    for rank in (1, 2, 3, 4, 5):
        for dtype in ("u8", "bf16", "f32", "f64"):
            for swz in ("none", "32B", "64B", "128B"):
                if rank == 1 and swz != "none":
                    continue
                if rank in (4, 5) and dtype in ("u8", "f64") and swz not in ("none", "128B"):
                    continue
                inner = spans[swz]
                # In bounds.
                coords = [16 // DTYPES[dtype][0] * 3] + [1] * (rank - 1)
                out.append(tma_case(i, rank, dtype, swz, inner, coords)); i += 1
                # Partly out of bounds, both sides.
                coords = [-(16 // DTYPES[dtype][0])] + [(-1) ** r * (r + 1) for r in range(1, rank)]
                if rank >= 2:
                    coords[1] = SHAPES[rank][1] - 2 if rank > 2 else 30
                out.append(tma_case(i, rank, dtype, swz, inner, coords)); i += 1
    # Narrower boxes than the swizzle span, and the span at the row's end.
    out.append(tma_case(i, 2, "bf16", "128B", 64, [8, 3])); i += 1
    i += 1  # (a 64B-swizzle box at [130, 20]: the driver refused its map; seeds keep their numbers)
    out.append(tma_case(i, 2, "f32", "128B", 128, [40, 38])); i += 1
    # Entirely outside, and OOB NaN fill.
    out.append(tma_case(i, 2, "bf16", "128B", 128, [200, 50])); i += 1
    for dtype in ("bf16", "f16", "f32", "f64"):
        out.append(tma_case(i, 2, dtype, "128B", 128, [-8 * 8 // DTYPES[dtype][0], 30], oob="nan")); i += 1
    out.append(tma_case(i, 3, "f32", "none", 64, [60, -1, 4], oob="nan")); i += 1
    return out


def other_cases():
    return [
        dict(name="mbarrier_phases", ptx="async.ptx", kernel="mbarrier_phases",
             grid=1, block=128, cluster=1, smem=0, bufs=[],
             args=["buf:out:256:zero:out={out:out}"], outputs={"out": "bits"}),
        dict(name="tma_multicast_2d", ptx="async.ptx", kernel="tma_multicast_2d",
             grid=2, block=128, cluster=2, smem=0,
             bufs=["g:10880:seed=7:bf16"],
             args=["tmap:g:dtype=bf16:dims=136,40:strides=272:box=64,24:swizzle=128B",
                   "buf:tile:6144:poison:out={out:tile}", "i32:40", "i32:20", "u32:3072"],
             outputs={"tile": "bits"}),
        # Pieces of 2048, 1024, 1024 bytes at aligned addresses, and of
        # 1040, 3040, 16 bytes (16-byte multiples) from in + 16 * rank.
        dict(name="bulk_copies", ptx="async.ptx", kernel="bulk_copies",
             grid=2, block=128, cluster=2, smem=0, bufs=[],
             args=["buf:in:4096:seed=8:u8", "buf:out:24576:poison:out={out:out}",
                   "u32:2048", "u32:1024", "u32:0"],
             outputs={"out": "bits"}),
        dict(name="bulk_copies_odd", ptx="async.ptx", kernel="bulk_copies",
             grid=2, block=128, cluster=2, smem=0, bufs=[],
             args=["buf:in:4112:seed=8:u8", "buf:out:24576:poison:out={out:out}",
                   "u32:1040", "u32:3040", "u32:16"],
             outputs={"out": "bits"}),
        dict(name="is_explicit_cluster", ptx="async.ptx", kernel="is_explicit_cluster",
             grid=2, block=32, cluster=2, smem=0, bufs=[],
             args=["buf:out:8:poison:out={out:out}"], outputs={"out": "bits"}),
        dict(name="cluster_dsmem", ptx="async.ptx", kernel="cluster_dsmem",
             grid=8, block=256, cluster=4, smem=0, bufs=[],
             args=["buf:in:8192:seed=9:i32", "buf:out:2048:poison:out={out:out}"],
             outputs={"out": "bits"}),
        dict(name="atom_shared_word", ptx="warp.ptx", kernel="atom_shared_word",
             grid=4, block=256, cluster=1, smem=0, bufs=[],
             args=["buf:a:4096:seed=10:i32", "buf:b:4096:seed=11:i32",
                   "buf:c:4096:zero", "buf:out:64:zero:out={out:out}", "i32:1024"],
             outputs={"out": "bits"}),
    ]


# ===== WGMMA (not replayed yet) =====
# wgmma cases (every smem-descriptor swizzle, both majors, bf16 and fp8)
# join here once the emulator implements wgmma: kernels in wgmma.cu, cases
# appended to WGMMA_CASES, captured on the H200 with differential.sh.
WGMMA_CASES = []


def cases(op_count):
    return elementwise_cases(op_count) + tma_cases() + other_cases() + WGMMA_CASES
