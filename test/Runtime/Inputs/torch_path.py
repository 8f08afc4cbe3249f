"""The Python package's path for torch tensors (python/nvfp4, _from_torch),
on the cuda backend against the mock driver (test/Runtime/
python-torch-path.test). Standard library only: the tensors are stand-ins
with torch.Tensor's attributes (their class claims module "torch") whose
__dlpack__ fails, so a launch that goes through shows that the attributes,
not DLPack, gave the call its tensors (docs/CAPI.md, "Buffers"). With
NVFP4_MOCK_RECORD set it also counts the tensor maps the launches encode:
a launch on the tensors of an earlier one encodes none."""

import os
import sys

import nvfp4

GQA = """
func.func @gqa(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x256x2x64xbf16>,
               %v: tensor<2x256x2x64xbf16>)
    -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v softmax_scale(0.125)
      : (tensor<2x1x8x64xbf16>, tensor<2x256x2x64xbf16>,
         tensor<2x256x2x64xbf16>)
      -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>)
  return %o, %lse : tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>
}
"""


class Dev:
    def __init__(self, type):
        self.type = type


class Tensor:
    """torch.Tensor's attributes over a DeviceArray's memory."""

    def __init__(self, array, dtype, shape, device="cuda"):
        self.array, self.dtype, self.shape = array, dtype, shape
        self.device = Dev(device)
        self.is_cuda = device == "cuda"

    def data_ptr(self):
        return self.array.ptr

    def stride(self):
        out, n = [], 1
        for extent in reversed(self.shape):
            out.append(n)
            n *= extent
        return tuple(reversed(out))

    def __dlpack__(self, stream=None):
        raise AssertionError("DLPack used for a torch tensor")


Tensor.__module__ = "torch"


def main():
    k = nvfp4.compile(GQA, chip="sm_90a")
    dev = nvfp4.Device("cuda")
    print("device:", dev.backend)

    def tensor(info, dtype=None, device="cuda"):
        return Tensor(dev.empty(info.shape, info.dtype),
                      dtype or {"bf16": "torch.bfloat16",
                                "f32": "torch.float32"}[info.dtype],
                      info.shape, device)
    ins = [tensor(i) for i in k.inputs]
    outs = tuple(tensor(o) for o in k.outputs)
    ws = dev.empty((max(k.workspace_bytes, 1),), "u8")
    record = os.environ.get("NVFP4_MOCK_RECORD", "")

    def encodes():
        if not record or not os.path.exists(record):
            return 0
        with open(record) as f:
            return sum(line.startswith("encode tmap") for line in f)
    k(*ins, out=outs, device=dev, workspace=ws, stream=1)
    print("launch on torch tensors: ok, %d tensor maps encoded" % encodes())
    # The same tensors again: the device's cache has every map.
    n = encodes()
    k(*ins, out=outs, device=dev, workspace=ws, stream=1)
    print("same tensors: %d encoded" % (encodes() - n))
    # Another q: its map only.
    n = encodes()
    k(tensor(k.inputs[0]), *ins[1:], out=outs, device=dev, workspace=ws,
      stream=1)
    print("another q: %d encoded" % (encodes() - n))
    bad = [
        lambda: k(tensor(k.inputs[0], "torch.float64"), *ins[1:], out=outs,
                  device=dev, workspace=ws, stream=1),
        lambda: k(tensor(k.inputs[0], device="cpu"), *ins[1:], out=outs,
                  device=dev, workspace=ws, stream=1),
        lambda: k(tensor(k.inputs[1], "torch.float32"), *ins[1:], out=outs,
                  device=dev, workspace=ws, stream=1),
    ]
    for case in bad:
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
