"""The Python package on the emulator (test/Python/python.test, docs/CAPI.md).

Standard library only. A small GQA decode is compiled from text, checked by
the library against float64, then launched on DeviceArrays of fresh random
inputs and compared with a float64 attention written here; then bad input,
each error naming the argument.
"""

import math
import random
import struct
import sys

import nvfp4

GQA = """
func.func @gqa(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x256x2x64xbf16>,
               %v: tensor<2x256x2x64xbf16>, %sink: tensor<8xf32>,
               %lens: tensor<2xi32>)
    -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) kv_lens(%lens)
      softmax_scale(0.125)
      : (tensor<2x1x8x64xbf16>, tensor<2x256x2x64xbf16>,
         tensor<2x256x2x64xbf16>, tensor<8xf32>, tensor<2xi32>)
      -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>)
  return %o, %lse : tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>
}
"""
B, HQ, HKV, SKV, D = 2, 8, 2, 256, 64

NVFP4_FUNCTIONS = [
    """func.func @quantize(%x: tensor<128x256xbf16>, %gs: tensor<f32>)
        -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>) {
      %d, %s = nvfp4.quantize %x scale(%gs) : (tensor<128x256xbf16>,
          tensor<f32>) -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>)
      return %d, %s : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>
    }""",
    """func.func @quantize_amax(%x: tensor<128x256xbf16>)
        -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>, tensor<f32>) {
      %d, %s, %g = nvfp4.quantize %x : (tensor<128x256xbf16>)
          -> (tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>, tensor<f32>)
      return %d, %s, %g : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN>,
          tensor<f32>
    }""",
    """func.func @dequantize(%d: tensor<128x256xf4E2M1FN>,
                            %s: tensor<128x16xf8E4M3FN>, %gs: tensor<f32>)
        -> tensor<128x256xbf16> {
      %y = nvfp4.dequantize %d, %s scale(%gs) : (tensor<128x256xf4E2M1FN>,
          tensor<128x16xf8E4M3FN>, tensor<f32>) -> tensor<128x256xbf16>
      return %y : tensor<128x256xbf16>
    }""",
]


def bf16_bits(x):
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16  # round to nearest even


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def main():
    print("api version", nvfp4.api_version())
    k = nvfp4.compile(GQA, num_sms=148)
    print("inputs", k.inputs)
    print("outputs", k.outputs)
    print("launches", [(l["kernel"], l["grid"], l["block"], l["cluster"])
                       for l in k.metadata["launches"]])
    dev = nvfp4.Device("emulator")
    passed, report = k.check(dev, seed=4)
    print("check:", report.strip().splitlines()[-1])
    assert passed

    rng = random.Random(7)
    q = [bf16_bits(rng.uniform(-1, 1)) for _ in range(B * HQ * D)]
    kk = [bf16_bits(rng.uniform(-1, 1)) for _ in range(B * SKV * HKV * D)]
    vv = [bf16_bits(rng.uniform(-1, 1)) for _ in range(B * SKV * HKV * D)]
    sink = [rng.uniform(-1, 1) for _ in range(HQ)]
    lens = [SKV, 77]
    pack = lambda fmt, xs: struct.pack("<%d%s" % (len(xs), fmt), *xs)
    args = [dev.array(pack("H", q), (B, 1, HQ, D), "bf16"),
            dev.array(pack("H", kk), (B, SKV, HKV, D), "bf16"),
            dev.array(pack("H", vv), (B, SKV, HKV, D), "bf16"),
            dev.array(pack("f", sink), (HQ,), "f32"),
            dev.array(pack("i", lens), (B,), "i32")]
    o = dev.array(b"\xff" * (B * HQ * D * 2), (B, 1, HQ, D), "bf16")
    lse = dev.array(b"\xff" * (B * HQ * 4), (B, HQ, 1), "f32")
    k(*args, out=(o, lse), device=dev)
    got_o = struct.unpack("<%dH" % (B * HQ * D), o.to_bytes())
    got_lse = struct.unpack("<%df" % (B * HQ), lse.to_bytes())

    err2 = ref2 = lse_err = 0.0
    nan = 0
    for b in range(B):
        for h in range(HQ):
            g = h // (HQ // HKV)
            s = []
            for j in range(lens[b]):
                base = ((b * SKV + j) * HKV + g) * D
                s.append(0.125 * sum(
                    bf16_value(q[(b * HQ + h) * D + c]) *
                    bf16_value(kk[base + c]) for c in range(D)))
            m = max(s + [sink[h]])
            p = [math.exp(x - m) for x in s]
            z = sum(p) + math.exp(sink[h] - m)
            for c in range(D):
                ref = sum(p[j] * bf16_value(vv[((b * SKV + j) * HKV + g) * D
                                               + c])
                          for j in range(lens[b])) / z
                got = bf16_value(got_o[(b * HQ + h) * D + c])
                nan += math.isnan(got)
                err2 += (got - ref) ** 2
                ref2 += ref ** 2
            got = got_lse[b * HQ + h]
            nan += math.isnan(got)
            lse_err = max(lse_err, abs(got - (m + math.log(z))))
    rel = math.sqrt(err2 / ref2)
    ok = nan == 0 and rel < 1e-2 and lse_err < 1e-4
    print("launch: %s rel_l2=%.3g lse_max_abs=%.3g nan=%d" %
          ("PASS" if ok else "FAIL", rel, lse_err, nan))
    assert ok

    # The NVFP4 ops: e2m1 data as bytes (two per byte), e4m3 scale factors
    # as bytes, each checked against float64 by the library.
    for text in NVFP4_FUNCTIONS:
        kn = nvfp4.compile(text)
        passed, report = kn.check(dev, seed=5)
        print("nvfp4 %s: %s -> %s: %s" % (
            kn.metadata["function"],
            ", ".join("%s %s%s" % (i.name, i.dtype, list(i.shape))
                      for i in kn.inputs),
            ", ".join("%s %s%s" % (o.name, o.dtype, list(o.shape))
                      for o in kn.outputs),
            report.strip().splitlines()[-1]))
        assert passed

    # A cubin too (ptxas for sm_100a): what the cuda backend loads.
    kc = nvfp4.compile(GQA, cubin=1)
    print("cubin:", kc.cubin[:4], len(kc.cubin) > 1000, "ptx:",
          ".target sm_100a" in kc.ptx, "without:", k.cubin)

    # Bad input: each error names the argument; nothing launches.
    class FakeCuda:  # a CUDA array interface, for the error paths
        def __init__(self, strides=None, data=1 << 40):
            self.__cuda_array_interface__ = {
                "shape": (B, 1, HQ, D), "typestr": "<V2", "version": 3,
                "data": (data, False), "strides": strides}

    cases = [
        lambda: k(*args[:4], out=(o, lse), device=dev),
        lambda: k(*args, out=(o,), device=dev),
        lambda: k(*args, out=(o, lse)),
        lambda: k(args[0], args[3], *args[2:], out=(o, lse), device=dev),
        lambda: k("q", *args[1:], out=(o, lse), device=dev),
        lambda: k(FakeCuda(), *args[1:], out=(o, lse), device=dev),
        lambda: k(*args, out=(lse, o), device=dev),
        lambda: dev.array(b"\0" * 3, (2,), "f32"),
        lambda: dev.empty((2,), "f64"),
        lambda: nvfp4.compile(GQA, colour="blue"),
        lambda: nvfp4.compile("func.func @f("),
        lambda: nvfp4.Device("gpu"),
    ]
    for case in cases:
        try:
            case()
        except nvfp4.Error as e:
            print("error:", str(e).splitlines()[0])
        else:
            print("FAIL: no error")
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
