"""The C API without a compiler on the GPU machine: kernel artifacts
launched on PyTorch tensors through the real driver
(scripts/device/host_path_h200.sh runs this; torch is there, MLIR is not).

The artifacts are nvfp4.attention_merge compiled for sm_90a where MLIR is
(scripts/device/gen_host_objects.sh: merge_sm90.nvfp4 with its cubin,
merge_sm90_ptx.nvfp4 with PTX only, which the driver compiles at load).
libnvfp4_runtime.so ($NVFP4_LIBRARY) loads them. For each:

1. check(): random inputs, the float64 comparison, on the cuda backend;
2. k(...) on torch CUDA tensors, the inputs from make_inputs(seed), the
   outputs poisoned with NaN; the results compared with float64
   (check_outputs), and with the emulator's for the same inputs (how many
   elements differ and by how many units in the last place: printed, not
   a pass condition);
3. on a torch stream: the stream first sleeps (torch.cuda._sleep), then
   copies the inputs in, then the launch is enqueued; the call must return
   while the stream is still busy, and the outputs must be right, which
   they are only if the kernels ran on that stream after the copies;
4. bad input: a transposed (non-contiguous) tensor, a wrong dtype, a CPU
   tensor; each an nvfp4.Error naming the argument, nothing launched.

Usage: python3 capi_h200.py ARTIFACT...   Prints PASS/FAIL lines; exit
status 0 when all pass.
"""
import sys

import torch

import nvfp4

TORCH = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
         "i32": torch.int32, "u8": torch.uint8, "i8": torch.int8}


def to_torch(data, info, device="cuda"):
    t = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    return t.view(TORCH[info.dtype]).reshape(info.shape).to(device)


def poisoned(info):
    t = torch.empty(info.shape, dtype=TORCH[info.dtype], device="cuda")
    if t.is_floating_point():
        t.fill_(float("nan"))
    else:
        t.fill_(-1)
    return t


def host_bytes(t):
    return t.detach().contiguous().cpu().view(torch.uint8).numpy().tobytes() \
        if hasattr(t, "numpy") else bytes(t)


def ulp_diff(a, b, dtype):
    """'N of M elements differ, at most U ulp' between two outputs' bytes."""
    ints = {"bf16": torch.int16, "f16": torch.int16, "f32": torch.int32}
    if dtype not in ints:
        diff = sum(x != y for x, y in zip(a, b))
        return "%d of %d bytes differ" % (diff, len(a))
    x = torch.frombuffer(bytearray(a), dtype=ints[dtype]).long()
    y = torch.frombuffer(bytearray(b), dtype=ints[dtype]).long()
    d = (x - y).abs()
    return "%d of %d elements differ, at most %d ulp" % (
        int((d != 0).sum()), d.numel(), int(d.max()) if d.numel() else 0)


def main(paths):
    failures = 0

    def report(name, ok, detail=""):
        nonlocal failures
        failures += not ok
        print("%s %s %s" % ("PASS" if ok else "FAIL", name, detail), flush=True)

    try:
        nvfp4.compile("func.func @f() { return }")
        report("runtime library refuses to compile", False)
    except nvfp4.Error as e:
        report("runtime library refuses to compile", "no compiler" in str(e))
    cuda = nvfp4.Device("cuda")
    emu = nvfp4.Device("emulator")
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        k = nvfp4.load(path)
        print("%s: %s, cubin %s, launches %s" % (
            name, k.metadata["function"], k.cubin is not None,
            [(l["kernel"], l["grid"], l["block"]) for l in
             k.metadata["launches"]]), flush=True)
        passed, text = k.check(cuda, seed=2)
        report(name + " check on cuda", passed, text.strip().splitlines()[-1])

        for seed in (1, 3):
            data = k.make_inputs(seed)
            ins = [to_torch(d, i) for d, i in zip(data, k.inputs)]
            outs = [poisoned(o) for o in k.outputs]
            k(*ins, out=tuple(outs), device=cuda)
            torch.cuda.synchronize()
            got = [host_bytes(o) for o in outs]
            ok, text = k.check_outputs(data, got)
            report("%s torch seed %d" % (name, seed), ok,
                   text.strip().splitlines()[-1])
            e_ins = [emu.array(d, i.shape, i.dtype)
                     for d, i in zip(data, k.inputs)]
            e_outs = [emu.array(b"\xff" * o.nbytes, o.shape, o.dtype)
                      for o in k.outputs]
            k(*e_ins, out=tuple(e_outs), device=emu)
            # Recorded, not required: the kernels use ex2.approx and
            # lg2.approx, which the emulator computes exactly rounded
            # rather than as the hardware's approximation does.
            for o, g, e in zip(k.outputs, got, e_outs):
                print("  %s seed %d %s: %s" % (name, seed, o.name,
                                               ulp_diff(g, e.to_bytes(),
                                                        o.dtype)))

        # On a torch stream, behind a sleep and the input copies.
        data = k.make_inputs(5)
        pinned = [to_torch(d, i, "cpu").pin_memory()
                  for d, i in zip(data, k.inputs)]
        ins = [torch.empty(i.shape, dtype=TORCH[i.dtype], device="cuda")
               for i in k.inputs]
        outs = [poisoned(o) for o in k.outputs]
        torch.cuda.synchronize()
        stream = torch.cuda.Stream()
        ws = cuda.empty((max(k.workspace_bytes, 1),), "u8")
        with torch.cuda.stream(stream):
            torch.cuda._sleep(200_000_000)  # about 0.1 s at 2 GHz
            for dst, src in zip(ins, pinned):
                dst.copy_(src, non_blocking=True)
            k(*ins, out=tuple(outs), device=cuda, stream=stream,
              workspace=ws if k.workspace_bytes else None)
            busy = not stream.query()
        stream.synchronize()
        ok, text = k.check_outputs(data, [host_bytes(o) for o in outs])
        report(name + " on a torch stream after its copies", ok and busy,
               "returned while the stream was busy: %s; %s" %
               (busy, text.strip().splitlines()[-1]))

        # Bad input.
        good = [to_torch(d, i) for d, i in zip(k.make_inputs(1), k.inputs)]
        outs = [poisoned(o) for o in k.outputs]
        first = k.inputs[0]
        bad = {
            "transposed": good[0].transpose(-1, -2).contiguous()
                          .transpose(-1, -2),
            "wrong dtype": good[0].float(),
            "cpu tensor": good[0].cpu(),
        }
        for what, t in bad.items():
            try:
                k(t, *good[1:], out=tuple(outs), device=cuda)
                report("%s %s is an error" % (name, what), False)
            except nvfp4.Error as e:
                msg = str(e).splitlines()[0]
                report("%s %s is an error" % (name, what),
                       msg.startswith("input 0 (%s)" % first.name), msg)
        torch.cuda.synchronize()
        report(name + " outputs untouched by the refused launches",
               all(torch.isnan(o).all().item() if o.is_floating_point()
                   else (o == -1).all().item() for o in outs))
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
