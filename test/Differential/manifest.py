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


# The H200 (2026-12-03): every start not a multiple of 16 bytes faults.
LOAD_FAULT = "TMA tile load whose box starts at byte"


# TMA tensor loads at every start alignment of dimension 0 modulo 16
# bytes (issue 12: the H200's twin of the store rule): u8, bf16 and f32,
# without and with the 128B swizzle, in bounds and starting before
# dimension 0; rank 1 and 3. Names start "tmaalign_".
def tma_align_cases():
    out = []
    i = 500
    for dtype in ("u8", "bf16", "f32"):
        esize = DTYPES[dtype][0]
        for swz, inner in (("none", 64), ("128B", 128)):
            for byte in range(0, 16, esize):
                for start in (32 + byte, byte - 16):   # in bounds; before dim 0
                    c = tma_case(i, 2, dtype, swz, inner, [start // esize, 3])
                    c["name"] = "tmaalign_" + c["name"][len("tma_"):]
                    if byte:
                        c["faults"] = dict(h200=STORE_HW_FAULT,
                                           emulator=LOAD_FAULT, rule="unaligned")
                    out.append(c)
                    i += 1
    for rank, coords in ((1, [5]), (1, [-3]), (3, [3, 1, 1]), (3, [-1, 1, 1])):
        c = tma_case(i, rank, "f32", "none", 64, coords)
        c["name"] = "tmaalign_" + c["name"][len("tma_"):]
        c["faults"] = dict(h200=STORE_HW_FAULT, emulator=LOAD_FAULT,
                           rule="unaligned")
        out.append(c)
        i += 1
    return out


# TMA tensor stores (tma_store_Nd in async.cu): the kernel fills its
# 1024-byte-aligned tile with the 16 KiB input tmastore.src as it is and
# stores one box into a poisoned (0xFF) tensor, so the tensor shows which
# elements were written and from which tile bytes (the map's swizzle
# un-applied). Rows of 256 bytes in a 272-byte pitch: the 16 padding bytes
# of each row must stay poisoned. differential.py tma-store-reference checks
# the outputs against a Python model of the store.
#
# The H200 raises CUDA_ERROR_ILLEGAL_INSTRUCTION for a store with a
# negative coordinate (any dimension) or whose box starts in dimension 0 at
# a byte offset that is not a multiple of 16 (docs/Differential.md "TMA
# stores"). Such cases carry `faults`: the H200 must fault with the `h200`
# text and the emulator must report an error containing the `emulator` text
# (differential.py compares the two outcomes instead of buffers).
STORE_SHAPES = {1: [1088], 2: [0, 40], 3: [0, 6, 5], 4: [0, 4, 3, 3], 5: [0, 3, 2, 2, 3]}
STORE_SRC_BYTES = 16384
# Outer coordinates of the partly out-of-bounds boxes (boxes OUTER_BOX):
# past the end of every outer dimension, and alternately before and past.
STORE_PAST_OUTER = {2: [30], 3: [4, 3], 4: [2, 2, 2], 5: [2, 1, 1, 2]}
STORE_PARTLY_OUTER = {2: [30], 3: [4, -1], 4: [2, -1, 2], 5: [2, -1, 1, -1]}
STORE_HW_FAULT = "CUDA_ERROR_ILLEGAL_INSTRUCTION"
STORE_FAULTS = {"negative": "TMA tile store with a negative tensor coordinate",
                "unaligned": "not a multiple of 16 bytes, an illegal instruction"}


def tma_store_case(rank, dtype, swizzle, inner_bytes, coords, dim0=None, faults=None):
    """DIM0 overrides dimension 0's size (elements; the pitch stays).
    FAULTS: None, or the key in STORE_FAULTS of the rule the store breaks
    (the H200 faults on it)."""
    esize, _ = DTYPES[dtype]
    dims = [dim0 or (1088 if rank == 1 else 256) // esize] + STORE_SHAPES[rank][1:]
    strides = []
    acc = 1088 if rank == 1 else 272
    for d in dims[1:]:
        strides.append(acc)
        acc *= d
    total = acc
    box = [inner_bytes // esize] + OUTER_BOX[rank]
    cs = list(coords) + [0] * (5 - len(coords))
    name = "tma_store_%dd_%s_%s_b%d_%s" % (rank, dtype, swizzle, inner_bytes,
                                          "_".join(str(c).replace("-", "m") for c in coords))
    if dim0:
        name += "_d%d" % dim0
    tmap = "tmap:g:dtype=%s:dims=%s:strides=%s:box=%s:swizzle=%s" % (
        dtype, ",".join(map(str, dims)), ",".join(map(str, strides)),
        ",".join(map(str, box)), swizzle)
    if rank == 1:
        tmap = tmap.replace(":strides=:", ":")
    case = dict(
        name=name, ptx="async.ptx", kernel="tma_store_%dd" % rank,
        grid=1, block=128, cluster=1, smem=0,
        bufs=["g:%d:poison:out={out:g}" % total],
        args=[tmap, "buf:src:%d:file={in:tmastore.src}" % STORE_SRC_BYTES]
        + ["i32:%d" % c for c in cs],
        inputs=("tmastore", STORE_SRC_BYTES),
        tma_store=dict(rank=rank, esize=esize, swizzle=swizzle, dims=dims,
                       strides=strides, box=box, coords=list(coords), bytes=total),
        outputs={"g": "bits"})
    if faults:
        case["faults"] = dict(h200=STORE_HW_FAULT, emulator=STORE_FAULTS[faults], rule=faults)
    return case


def tma_store_cases():
    """Every rank 2..5 x swizzle: a box in bounds, one partly past the end
    of every dimension, one partly before dimension 0 (faults) (bf16 and
    f32 alternating); rank 1; boxes narrower than the swizzle span; boxes
    entirely outside; then the cases that pin the H200's rules: negative
    coordinates, dimension-0 starts that are not 16-byte aligned, and a
    dimension 0 whose size is not a multiple of 16 bytes."""
    spans = {"none": 64, "32B": 32, "64B": 64, "128B": 128}
    P = tma_store_case
    out = []
    for rank in (2, 3, 4, 5):
        for k, swz in enumerate(("none", "32B", "64B", "128B")):
            inside, partly = ("bf16", "f32") if (rank + k) % 2 == 0 else ("f32", "bf16")
            inner = spans[swz]
            esize = DTYPES[partly][0]
            coords = [16 // DTYPES[inside][0] * 3] + [1] * (rank - 1)
            out.append(P(rank, inside, swz, inner, coords))
            # Half the row past the end of dimension 0, past the end of the
            # outer dimensions; part of the box inside.
            coords = [(256 - inner // 2) // esize] + STORE_PAST_OUTER[rank]
            out.append(P(rank, partly, swz, inner, coords))
            # One 16-byte chunk before dimension 0, past the end of dimension
            # 1, then alternately before and past the end: the H200 faults.
            coords = [-(16 // esize)] + STORE_PARTLY_OUTER[rank]
            out.append(P(rank, partly, swz, inner, coords, faults="negative"))
    out.append(P(1, "bf16", "none", 64, [24]))
    out.append(P(1, "f32", "none", 128, [250], faults="unaligned"))  # and past the end
    # Rows narrower than the swizzle span; the span at the row's end.
    out.append(P(2, "bf16", "128B", 64, [8, 3]))
    out.append(P(2, "f32", "64B", 32, [-4, 20], faults="negative"))
    out.append(P(2, "f32", "128B", 128, [40, 38]))
    # Entirely outside.
    out.append(P(2, "bf16", "128B", 128, [200, 50]))
    out.append(P(1, "f32", "none", 128, [280]))
    # Negative coordinates fault: in dimension 0 only (the box's start
    # address inside the tensor or before it), in an outer dimension only
    # (partly inside, entirely outside), entirely before dimension 0, a
    # 2-byte step back, rank 1, 3 and 5.
    out += [P(2, "f32", "none", 64, [-4, 1], faults="negative"),
            P(2, "f32", "none", 64, [-4, 0], faults="negative"),
            P(2, "f32", "none", 64, [12, -4], faults="negative"),
            P(2, "f32", "none", 64, [12, -30], faults="negative"),
            P(2, "f32", "none", 64, [-16, 1], faults="negative"),
            P(2, "bf16", "none", 64, [-1, 1], faults="negative"),
            P(3, "bf16", "none", 64, [24, 1, -1], faults="negative"),
            P(5, "f32", "none", 64, [12, 1, 1, 1, -1], faults="negative"),
            P(1, "f32", "none", 128, [-4], faults="negative")]
    # Dimension 0 starting at a byte offset that is not a multiple of 16
    # faults, in bounds or not: 4, 8 (u8, bf16, f64), 8 under 128B, rank 1,
    # partly past the end, entirely past the end. 16-byte multiples run,
    # also when the box runs past the end.
    out += [P(2, "f32", "none", 64, [1, 1], faults="unaligned"),
            P(2, "bf16", "none", 64, [4, 1], faults="unaligned"),
            P(2, "u8", "none", 64, [8, 1], faults="unaligned"),
            P(2, "f64", "none", 64, [1, 1], faults="unaligned"),
            P(2, "f32", "128B", 128, [2, 1], faults="unaligned"),
            P(1, "f32", "none", 128, [1], faults="unaligned"),
            P(2, "f32", "none", 64, [50, 1], faults="unaligned"),
            P(2, "f32", "128B", 128, [42, 38], faults="unaligned"),
            P(2, "bf16", "none", 64, [129, 1], faults="unaligned"),
            P(2, "u8", "none", 64, [16, 1]), P(2, "f64", "none", 64, [2, 1]),
            P(1, "f32", "none", 128, [248]), P(2, "f32", "none", 64, [52, 1]),
            P(2, "f32", "none", 64, [12, 30])]
    # Dimension 0 of 62 f32 (248 bytes) or 270 (1080 bytes): the store
    # writes whole 16-byte chunks, so the 2 elements past the end in the
    # last chunk are written too; in-bounds boxes as usual.
    out += [P(2, "f32", "none", 64, [52, 1], dim0=62), P(2, "f32", "none", 64, [12, 1], dim0=62),
            P(2, "f32", "none", 64, [50, 1], dim0=62, faults="unaligned"),
            P(1, "f32", "none", 128, [240], dim0=270), P(1, "f32", "none", 128, [8], dim0=270)]
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
        # st.async into the peer CTA (.b32, .v2.b32, .v4.b32, .b64,
        # .v2.b64), completing on the peer's mbarrier.
        dict(name="st_async_peer", ptx="async.ptx", kernel="st_async_peer",
             grid=2, block=128, cluster=2, smem=0, bufs=[],
             args=["buf:in:13312:seed=12:i32", "buf:out:13312:poison:out={out:out}"],
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


# ===== WGMMA =====
# wgmma.mma_async (wgmma.cu, written by gen_wgmma.py from WGMMA_VARIANTS):
# two chained MMAs of one warpgroup (K = 2 x the instruction's K), A and B
# placed by the kernel in the canonical shared-memory layout the case gives
# (every swizzle, K-major and MN-major, two stride arrangements), or A from
# registers; the raw accumulator fragment is compared bit for bit (the
# inputs are small integers and halves: every sum is exact in f32).
# A variant: instruction form. ta/tb element types, n, k (the instruction's
# K), areg (A from registers), ta_trans/tb_trans (imm-trans: 1 = MN-major),
# sa/sb (imm-scale-a/b).
def _v(name, ta, tb, n, areg=False, ta_trans=0, tb_trans=0, sa=1, sb=1):
    return dict(name=name, ta=ta, tb=tb, n=n, k=16 if ta == "bf16" else 32, areg=areg,
                ta_trans=ta_trans, tb_trans=tb_trans, sa=sa, sb=sb)


WGMMA_VARIANTS = [
    _v("bf16_n64_ss_kk", "bf16", "bf16", 64),
    _v("bf16_n64_ss_mm", "bf16", "bf16", 64, ta_trans=1, tb_trans=1),
    _v("bf16_n8_ss_km_nega", "bf16", "bf16", 8, tb_trans=1, sa=-1),
    _v("bf16_n256_ss_mk_negb", "bf16", "bf16", 256, ta_trans=1, sb=-1),
    _v("bf16_n64_rs_k_nega", "bf16", "bf16", 64, areg=True, sa=-1),
    _v("bf16_n256_rs_m", "bf16", "bf16", 256, areg=True, tb_trans=1),
    _v("e4m3_n64_ss", "e4m3", "e4m3", 64),
    _v("e5m2_n64_ss", "e5m2", "e5m2", 64),
    _v("e4m3_e5m2_n256_ss_nega", "e4m3", "e5m2", 256, sa=-1),
    _v("e5m2_e4m3_n8_rs", "e5m2", "e4m3", 8, areg=True),
]
WGMMA_SWIZZLES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
WGMMA_A_BYTES, WGMMA_B_BYTES = 8192, 32768  # the kernel's shared regions


def wgmma_layout(major, swizzle, rows, kt, e, alt=False):
    """(mode, lbo, sbo, katom, bytes) of a canonical layout of ROWS x KT
    elements of E bytes: dense, MN groups outside K groups, or (ALT) the
    other way round."""
    s = WGMMA_SWIZZLES[swizzle]
    mode = s | (4 if major == "mn" else 0)
    if major == "k":
        kb = kt * e
        if s == 0:
            cores = kb // 16
            lbo, sbo = (128, cores * 128) if not alt else (rows // 8 * 128, 128)
            return mode, lbo, sbo, 0, rows // 8 * cores * 128
        w = 16 << s
        atoms = max(1, kb // w)
        if not alt:  # K atoms after all rows
            sbo, katom = 8 * w, rows // 8 * 8 * w
        else:        # K atoms side by side, then the next 8 rows
            sbo, katom = atoms * 8 * w, 8 * w
        return mode, 16, sbo, katom, atoms * rows // 8 * 8 * w
    rb = rows * e
    kgroups = kt // 8
    if s == 0:
        groups = rb // 16
        lbo, sbo = (groups * 128, 128) if not alt else (128, kgroups * 128)
        return mode, lbo, sbo, 0, groups * kgroups * 128
    w = 16 << s
    assert rb % w == 0, "an MN-major swizzled operand narrower than its swizzle row"
    atoms = rb // w
    lbo, sbo = (8 * w, atoms * 8 * w) if not alt else (kgroups * 8 * w, 8 * w)
    return mode, lbo, sbo, 0, atoms * kgroups * 8 * w


def wgmma_case(variant, a, b, scale_d, rand=False):
    """A case of VARIANT (a name in WGMMA_VARIANTS). A, B: (swizzle, alt)
    (the major follows the variant's imm-trans); A is ignored with areg.
    RAND: the full-mantissa inputs (sums round: the accumulation model
    decides the low bits) instead of small integers (sums exact)."""
    v = next(x for x in WGMMA_VARIANTS if x["name"] == variant)
    e = 2 if v["ta"] == "bf16" else 1
    kt, n = 2 * v["k"], v["n"]
    if v["areg"]:
        la, aname = (0, 0, 0, 0, 0), "reg"
    else:
        la = wgmma_layout("mn" if v["ta_trans"] else "k", a[0], 64, kt, e, a[1])
        aname = a[0] + ("alt" if a[1] else "")
    lb = wgmma_layout("mn" if v["tb_trans"] else "k", b[0], n, kt, e, b[1])
    assert la[4] <= WGMMA_A_BYTES and lb[4] <= WGMMA_B_BYTES, variant
    name = "wgmma_%s_a%s_b%s_d%d%s" % (variant, aname, b[0] + ("alt" if b[1] else ""), scale_d,
                                       "_rand" if rand else "")
    r = "_rand" if rand else ""
    return dict(
        name=name, ptx="wgmma.ptx", kernel="wgmma_" + variant,
        grid=1, block=128, cluster=1, smem=0, bufs=[], inputs=("wgmma", 0),
        wgmma=dict(variant=v, scale_d=scale_d, rand=rand),
        args=["buf:a:%d:file={in:wgmma.a_%s%s}" % (64 * 64, v["ta"], r),
              "buf:b:%d:file={in:wgmma.b_%s%s}" % (256 * 64, v["tb"], r),
              "buf:c:%d:file={in:wgmma.c%s}" % (128 * 128 * 4, r),
              "buf:out:%d:poison:out={out:d}" % (128 * n // 2 * 4)]
        + ["u32:%d" % x for x in la[:4] + lb[:4]] + ["u32:%d" % scale_d],
        outputs={"d": "bits"})


def wgmma_cases():
    out = []
    for i, s in enumerate(("none", "32B", "64B", "128B")):
        # Both K-major, then both MN-major, every swizzle; scale-d 0 and 1.
        out.append(wgmma_case("bf16_n64_ss_kk", (s, False), (s, True), i % 2))
        out.append(wgmma_case("bf16_n64_ss_mm", (s, True), (s, False), (i + 1) % 2))
        out.append(wgmma_case("e4m3_n64_ss", (s, i % 2 == 1), (s, i % 2 == 0), i % 2))
    out += [
        wgmma_case("bf16_n64_ss_kk", ("128B", False), ("none", False), 1),
        wgmma_case("bf16_n64_ss_mm", ("none", False), ("64B", True), 0),
        wgmma_case("bf16_n8_ss_km_nega", ("32B", False), ("none", True), 1),
        wgmma_case("bf16_n8_ss_km_nega", ("128B", True), ("none", False), 0),
        wgmma_case("bf16_n256_ss_mk_negb", ("64B", False), ("128B", False), 1),
        wgmma_case("bf16_n256_ss_mk_negb", ("none", True), ("32B", True), 0),
        wgmma_case("bf16_n64_rs_k_nega", None, ("64B", False), 1),
        wgmma_case("bf16_n64_rs_k_nega", None, ("none", True), 0),
        wgmma_case("bf16_n256_rs_m", None, ("128B", False), 1),
        wgmma_case("bf16_n256_rs_m", None, ("32B", True), 0),
        wgmma_case("e5m2_n64_ss", ("128B", False), ("32B", True), 1),
        wgmma_case("e5m2_n64_ss", ("none", True), ("64B", False), 0),
        wgmma_case("e4m3_e5m2_n256_ss_nega", ("64B", True), ("32B", False), 1),
        wgmma_case("e5m2_e4m3_n8_rs", None, ("128B", False), 1),
    ]
    # Full-mantissa inputs: one case per variant, C added and not.
    for i, v in enumerate(WGMMA_VARIANTS):
        sw = ("none", "32B", "64B", "128B")[i % 4]
        a = None if v["areg"] else (sw, i % 2 == 1)
        b = ("128B" if v["n"] * (2 if v["ta"] == "bf16" else 1) >= 64 or v["tb_trans"] == 0
             else "none", False)
        out.append(wgmma_case(v["name"], a, b, (i + 1) % 2, rand=True))
        out.append(wgmma_case(v["name"], a, ("none", True), i % 2, rand=True))
    return out


WGMMA_CASES = wgmma_cases()


def cases(op_count):
    return (elementwise_cases(op_count) + tma_cases() + tma_store_cases() + other_cases()
            + WGMMA_CASES + tma_align_cases())
