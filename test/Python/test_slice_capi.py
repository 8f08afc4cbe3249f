"""V as a slice of K through the C API (test/Python/slice.test,
docs/CAPI.md): absorbed MLA's V is the leading Dv columns of K's rows, a
`tensor.extract_slice` of the argument K that the kernel reads from K's
rows. The function then takes q and k only; check() and an explicit
launch + check_outputs() compare with float64 on the emulator, for the
sm_100a and the sm_90a kernel. A slice the kernel cannot read from its
argument's rows is refused with the operand named."""

import nvfp4

MLA = """
func.func @mla(%q: tensor<1x1x8x192xbf16>, %k: tensor<1x130x1x192xbf16>)
    -> (tensor<1x1x8x128xbf16>, tensor<1x8x1xf32>) {
  %v = tensor.extract_slice %k[0, 0, 0, %c] [1, 130, 1, 128] [1, 1, 1, 1]
      : tensor<1x130x1x192xbf16> to tensor<1x130x1x128xbf16>
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.0721687836)
      : (tensor<1x1x8x192xbf16>, tensor<1x130x1x192xbf16>,
         tensor<1x130x1x128xbf16>)
      -> (tensor<1x1x8x128xbf16>, tensor<1x8x1xf32>)
  return %o, %lse : tensor<1x1x8x128xbf16>, tensor<1x8x1xf32>
}
"""


def main():
    dev = nvfp4.Device("emulator")
    for chip in ("sm_100a", "sm_90a"):
        options = {"chip": chip, "features": "+ptx80"} \
            if chip == "sm_90a" else {}
        k = nvfp4.compile(MLA.replace("%c", "0"), **options)
        print(chip, "inputs", k.inputs)
        passed, text = k.check(dev, seed=4)
        print(chip, "check:", "PASS" if passed else "FAIL",
              text.strip().splitlines()[-1])
        data = k.make_inputs(5)
        ins = [dev.array(b, i.shape, i.dtype) for b, i in zip(data, k.inputs)]
        outs = [dev.array(b"\xff" * o.nbytes, o.shape, o.dtype)
                for o in k.outputs]
        k(*ins, out=tuple(outs), device=dev)
        passed, text = k.check_outputs(data, [o.to_bytes() for o in outs])
        print(chip, "launch:", "PASS" if passed else "FAIL",
              text.strip().splitlines()[-1])
    # Columns 64 .. 191 of K's rows: not V as K's prefix, so the kernel
    # reads V as a tensor of its own, which the function does not have.
    try:
        nvfp4.compile(MLA.replace("%c", "64"))
        print("offset slice: compiled")
    except nvfp4.Error as e:
        print("offset slice error:", e)


if __name__ == "__main__":
    main()
