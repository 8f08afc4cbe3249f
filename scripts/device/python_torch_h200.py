"""The Python package's buffer reading against real PyTorch CUDA tensors,
and host-lowered code called on them (scripts/device/host_path_h200.sh runs
this on the GPU machine; torch is there, MLIR is not).

1. nvfp4's DLPack reader (_from_dlpack) on torch CUDA tensors: data pointer,
   dtype, shape and strides agree with torch's own for contiguous bf16, f32
   and i32 tensors, a transposed view and a sliced view (an offset pointer).
2. The host-lowered nvfp4.attention_merge for sm_90a (libhost_objects.so:
   merge_sm90.o + libnvfp4_host_runtime) called through its C interface on
   torch CUDA tensors (the inputs are torch's memory, in the primary
   context the runtime shares), its results copied back and compared with a
   float64 torch reference, some LSEs -inf.
3. merge_into (merge_into_sm90.o): the same merge written into torch's
   own output tensors (device copies into memory the runtime did not
   allocate), its returned clones equal to them.

Usage: python3 python_torch_h200.py LIBHOST_OBJECTS_SO LIBNVFP4_HOST_RUNTIME_SO
Prints PASS/FAIL lines; exit status 0 when all pass.
"""
import ctypes
import math
import sys

import torch

import nvfp4


def main(objects, runtime):
    failures = 0

    def report(name, ok, detail=""):
        nonlocal failures
        failures += not ok
        print("%s %s %s" % ("PASS" if ok else "FAIL", name, detail))

    dev = torch.device("cuda")
    cases = {
        "bf16": torch.randn(4, 3, 8, dtype=torch.bfloat16, device=dev),
        "f32": torch.randn(5, 7, dtype=torch.float32, device=dev),
        "i32": torch.arange(12, dtype=torch.int32, device=dev).reshape(3, 4),
    }
    cases["transposed"] = cases["f32"].t()
    cases["sliced"] = cases["bf16"][1:, :, 2:6]
    for name, t in cases.items():
        data, dtype, shape, strides, kind, _ = nvfp4._from_dlpack(t, name)
        want_dtype = {torch.bfloat16: "bf16", torch.float32: "f32",
                      torch.int32: "i32"}[t.dtype]
        ok = (data == t.data_ptr() and dtype == want_dtype and
              shape == tuple(t.shape) and kind == 2 and
              (strides is None and t.is_contiguous() or
               strides == tuple(t.stride())))
        report("dlpack " + name, ok, "data=%#x shape=%s strides=%s" %
               (data, shape, strides))

    # The merge, B = 4, Sq = 1, Hq = 128, Dv = 512.
    rt = ctypes.CDLL(runtime, mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(objects)
    rt.nvfp4HostError.restype = ctypes.c_char_p
    rt.nvfp4HostBackend.restype = ctypes.c_char_p
    rt.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_size_t, ctypes.c_void_p]
    rt.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    g = torch.Generator(device=dev).manual_seed(5)
    o1 = torch.randn(4, 1, 128, 512, generator=g, device=dev).bfloat16()
    o2 = torch.randn(4, 1, 128, 512, generator=g, device=dev).bfloat16()
    lse1 = torch.randn(4, 128, 1, generator=g, device=dev) * 4
    lse2 = torch.randn(4, 128, 1, generator=g, device=dev) * 4
    lse1[0, :5] = -math.inf
    lse2[0, 3:8] = -math.inf
    sink = torch.randn(128, generator=g, device=dev)
    keep = []

    def descriptor(t):
        data, _, shape, _, _, capsule = nvfp4._from_dlpack(t, "arg")
        words = [data, data, 0] + list(shape)
        stride, strides = 1, []
        for d in reversed(shape):
            strides.insert(0, stride)
            stride *= d
        arr = (ctypes.c_int64 * len(words + strides))(*(words + strides))
        keep.append((arr, capsule))
        return ctypes.cast(arr, ctypes.c_void_p)

    results = (ctypes.c_int64 * (3 + 8 + 3 + 6))()
    torch.cuda.synchronize()
    lib._mlir_ciface_merge(results, descriptor(o1), descriptor(lse1),
                           descriptor(o2), descriptor(lse2), descriptor(sink))
    error = rt.nvfp4HostError()
    report("merge call", error is None,
           "backend=%s %s" % (rt.nvfp4HostBackend(), error or ""))
    if error is not None:
        return 1
    o = torch.empty(4, 1, 128, 512, dtype=torch.bfloat16)
    lse = torch.empty(4, 128, 1, dtype=torch.float32)
    rt.mgpuMemcpy(o.data_ptr(), results[1], o.numel() * 2, None)
    rt.mgpuMemcpy(lse.data_ptr(), results[3 + 8 + 1], lse.numel() * 4, None)
    rt.mgpuMemFree(results[0], None)
    rt.mgpuMemFree(results[11], None)

    l1, l2 = lse1.double().cpu(), lse2.double().cpu()
    s = sink.double().cpu().reshape(1, 128, 1)
    ref_lse = torch.logsumexp(torch.stack([l1, l2, s.expand_as(l1)]), dim=0)
    w1 = torch.exp(l1 - ref_lse).permute(0, 2, 1).unsqueeze(-1)
    w2 = torch.exp(l2 - ref_lse).permute(0, 2, 1).unsqueeze(-1)
    ref_o = w1 * o1.double().cpu() + w2 * o2.double().cpu()
    got = o.double()
    rel = ((got - ref_o).norm() / ref_o.norm()).item()
    lse_err = (lse.double() - ref_lse).abs().max().item()
    ok = (not torch.isnan(got).any() and rel < 1e-2 and lse_err < 1e-4)
    report("merge on torch tensors", ok,
           "rel_l2=%.3g lse_max_abs=%.3g" % (rel, lse_err))

    # merge_into: the results copied into torch's own output tensors
    # (gpu.memcpy into memory the runtime did not allocate: cuMemcpy), and
    # clones of them returned (the caller owns every result).
    o_out = torch.full((4, 1, 128, 512), float("nan"), dtype=torch.bfloat16,
                       device=dev)
    lse_out = torch.full((4, 128, 1), float("nan"), device=dev)
    results = (ctypes.c_int64 * (3 + 8 + 3 + 6))()
    torch.cuda.synchronize()
    lib._mlir_ciface_merge_into(results, descriptor(o1), descriptor(lse1),
                                descriptor(o2), descriptor(lse2),
                                descriptor(sink), descriptor(o_out),
                                descriptor(lse_out))
    error = rt.nvfp4HostError()
    report("merge_into call", error is None, (error or b"").decode())
    if error is None:
        torch.cuda.synchronize()
        got = o_out.double().cpu()
        rel = ((got - ref_o).norm() / ref_o.norm()).item()
        lse_err = (lse_out.double().cpu() - ref_lse).abs().max().item()
        clone = torch.empty(4, 1, 128, 512, dtype=torch.bfloat16)
        rt.mgpuMemcpy(clone.data_ptr(), results[1], clone.numel() * 2, None)
        rt.mgpuMemFree(results[0], None)
        rt.mgpuMemFree(results[11], None)
        ok = (not torch.isnan(got).any() and rel < 1e-2 and lse_err < 1e-4
              and torch.equal(clone, o_out.cpu()))
        report("merge_into torch's output tensors", ok,
               "rel_l2=%.3g lse_max_abs=%.3g clone equal: %s" %
               (rel, lse_err, torch.equal(clone, o_out.cpu())))
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
